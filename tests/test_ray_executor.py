"""The Ray executor on a real local cluster (``ray start --head`` + two ``ray start --address``
worker nodes on this machine, each with a gen09 work folder of its own): the same tasks as
the local executor, a killed worker node that loses nothing, a killed driver that resumes
from its receipts, ``gen09 verify`` and ``gen09 ab`` on the cluster, and a clear exit 2
without the extra."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gen09_core.mutate import snapshot
from tests.helpers import ROOT, run_gen09, tree_bytes, without_runner
from tests.ray_cluster import LocalCluster

REALISTIC = ROOT / "tests" / "fixtures" / "realistic_repo"
SHOP = ROOT / "tests" / "fixtures" / "mutate_repo"
TIMING = ("seconds", "time", "created_at", "wall_seconds")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    pytest.importorskip("ray")  # the test extra installs it (gen09[ray])
    made = LocalCluster(workers=2, cpus=1, memory_mb=8192, root=tmp_path_factory.mktemp("cluster"))
    yield made
    made.stop()


def _gen09(*args):
    return run_gen09(*args)


def _instances(out: Path) -> list[dict]:
    rows = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def _events(out: Path) -> list[dict]:
    path = out / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _bundles(out: Path) -> dict:
    return {p.name: tree_bytes(p) for p in sorted((out / "tasks").iterdir())}


# -- same results ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def realistic_runs(cluster, tmp_path_factory):
    base = tmp_path_factory.mktemp("same")
    repo = base / "tally"
    shutil.copytree(REALISTIC, repo)
    # runner "fresh" on both: a Ray worker runs every job in a fresh process, and the local warm
    # runner differs from a fresh process on this suite (its console-script test runs the file on
    # disk, which the warm runner never writes)
    config = base / "mutate.toml"
    config.write_text('[limits]\nrunner = "fresh"\n')
    args = ("mutate", repo, "--config", config, "--n", "6", "--seed", "1", "--json")
    local = _gen09(*args, "--out", base / "local")
    ray = _gen09(*args, "--executor", "ray", "--ray-address", cluster.address, "--out", base / "ray")
    return base, local, ray


def test_ray_and_local_runs_make_the_same_tasks(realistic_runs, cluster):
    base, local, ray = realistic_runs
    assert local.returncode == 0, local.stderr[-3000:]
    assert ray.returncode == 0, ray.stderr[-3000:]
    a, b = json.loads(local.stdout), json.loads(ray.stdout)
    assert a["exported"] >= 1
    assert a["tasks"] == b["tasks"]
    assert a["outcomes"] == b["outcomes"] and a["per_modifier"] == b["per_modifier"]
    assert _instances(base / "local") == _instances(base / "ray")
    assert (base / "local" / "instances.jsonl").read_bytes() == (base / "ray" / "instances.jsonl").read_bytes()
    assert _bundles(base / "local") == _bundles(base / "ray")
    # every mutant run went to the cluster (the uncovered ones never ran); the snapshot and the
    # venv were made on the workers
    assert b["runs_by_runner"] == {"ray": b["mutants"] - b["outcomes"]["uncovered"]}
    config = json.loads((base / "ray" / "config.json").read_text())
    assert config["limits"]["executor"] == "ray" and config["limits"]["ray_address"] == cluster.address
    made = [node for node in cluster.nodes if list((node.work / "snapshots").glob("*.gen09-snapshot-ready"))]
    assert made, "no worker node materialised the snapshot"
    for node in made:
        assert list((node.work / "cache" / "envs").glob("*/.gen09-ready"))  # a venv rebuilt from the lock
    assert not (cluster.head.work / "snapshots").exists()  # the head has no CPUs: no job ran there


def test_events_and_receipts_match_the_local_run(realistic_runs):
    base = realistic_runs[0]

    def shape(out):
        return [(e["stage"], e["status"], e["subject"], e["total"], e["failure_class"])
                for e in _events(out) if e["stage"] not in ("executor",)]

    local, ray = shape(base / "local"), shape(base / "ray")
    # the same stages, subjects and totals; progress events arrive in completion order
    assert sorted(local, key=repr) == sorted(ray, key=repr)
    receipts = [json.loads(line)["stage"] for line in (base / "ray" / "receipts.jsonl").read_text().splitlines()]
    assert {"config", "baseline", "export", "instances"} <= set(receipts)


def test_verify_on_the_cluster(realistic_runs, cluster):
    base = realistic_runs[0]
    local = _gen09("verify", base / "local", "--json")
    ray = _gen09("verify", base / "ray", "--json", "--executor", "ray", "--ray-address", cluster.address)
    assert local.returncode == 0 and ray.returncode == 0, ray.stdout + ray.stderr[-3000:]
    a, b = json.loads(local.stdout), json.loads(ray.stdout)
    assert a["ok"] == a["total"] == b["ok"] == b["total"] >= 1
    keep = ("nop", "oracle", "hash_ok", "ok", "failure_class")
    assert ([{k: r[k] for k in keep} | {"name": Path(r["bundle"]).name} for r in a["bundles"]]
            == [{k: r[k] for k in keep} | {"name": Path(r["bundle"]).name} for r in b["bundles"]])
    assert all(Path(r["bundle"]).parent == base / "ray" / "tasks" for r in b["bundles"])


def test_ab_on_the_cluster(realistic_runs, cluster):
    base = realistic_runs[0]
    args = ("ab", base / "local", "--k", "2", "--n", "2", "--seed", "5", "--generator", "template")
    local = _gen09(*args, "--out", base / "ab-local")
    ray = _gen09(*args, "--out", base / "ab-ray", "--executor", "ray", "--ray-address", cluster.address)
    assert local.returncode == 0, local.stderr[-3000:]
    assert ray.returncode == 0, ray.stderr[-3000:]
    a = json.loads((base / "ab-local" / "report.json").read_text())
    b = json.loads((base / "ab-ray" / "report.json").read_text())
    assert a["sample"] == b["sample"]
    assert [c["status"] for c in a["self_check"]["tasks"]] == [c["status"] for c in b["self_check"]["tasks"]]
    assert a["arms"] == b["arms"] and without_runner(a["per_task"]) == without_runner(b["per_task"])


# -- faults --------------------------------------------------------------------------------------


def _start(args, log: Path) -> subprocess.Popen:
    with open(log, "wb") as sink:
        return subprocess.Popen([sys.executable, "-m", "gen09_core", *map(str, args)], stdout=sink,
                                stderr=subprocess.STDOUT, env=os.environ.copy(), start_new_session=True)


def _job_folders(node) -> list[Path]:
    """The mutant job folders on ``node`` right now (``jobs/<run>/<job id>``): a job's folder
    is removed when it ends, so after the node is killed they are the jobs it was running."""
    return [path for path in (node.work / "jobs").glob("*/*")
            if path.is_dir() and not path.name.startswith("baseline") and not path.name.endswith(".gen09")]


def _wait_until(proc, condition):
    """Poll ``condition`` until it holds; fails when the process ends first."""
    while True:
        found = condition()
        if found:
            return found
        assert proc.poll() is None, "the run ended before the condition held"
        time.sleep(0.2)


def _kill_a_busy_node(cluster, proc) -> list[Path]:
    """Kill a worker node once it runs a mutant job of the run ``proc``, wait for the run to
    end and put a new node in its place. Returns the job folders the killed node kept: the
    jobs it was running at the kill, read after it (the job seen running before the kill may
    have ended and another begun)."""
    victim = _wait_until(proc, lambda: next((n for n in cluster.nodes if _job_folders(n)), None))
    victim.kill()
    lost = _job_folders(victim)
    _kill_leftovers(victim.work)
    proc.wait()
    cluster.nodes.remove(victim)
    cluster.start_worker(f"{victim.name}-replaced")
    return lost


def _kill_leftovers(folder: Path) -> None:
    """Kill the test processes a killed node left running (their cwd is inside its folder)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(folder)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(entry.name), signal.SIGKILL)


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    base = tmp_path_factory.mktemp("shop")
    repo = base / "shop"
    shutil.copytree(SHOP, repo)
    reference = _gen09("mutate", repo, "--n", "8", "--seed", "3", "--out", base / "local", "--json")
    assert reference.returncode == 0, reference.stderr[-3000:]
    return base, repo


def test_a_killed_worker_node_loses_nothing(cluster, shop):
    base, repo = shop
    for attempt in range(3):  # again when the job seen running ended before the kill landed
        cluster.wait_nodes(3)
        out = base / f"killed-node-{attempt}"
        proc = _start(["mutate", repo, "--n", "8", "--seed", "3", "--executor", "ray", "--ray-address",
                       cluster.address, "--out", out, "--json"], base / f"killed-node-{attempt}.log")
        lost = _kill_a_busy_node(cluster, proc)
        log = (base / f"killed-node-{attempt}.log").read_text()
        assert proc.returncode == 0, log[-3000:]
        # nothing lost: the same tasks, instances and bundles as the local run
        assert _instances(out) == _instances(base / "local")
        assert _bundles(out) == _bundles(base / "local")
        assert not [e for e in _events(out) if e["stage"] == "validate" and e["failure_class"]]
        if lost:
            break
    assert lost, "three kills in a row landed between two jobs"
    retried = [e for e in _events(out) if e["stage"] == "executor" and e["status"] == "retried"]
    assert retried and all(e["failure_class"] == "infrastructure" for e in retried)
    assert retried[0]["detail"]["attempt"] == 1


def _verdict(out, subject):
    """The final verdict of the mutant ``subject`` of the run ``out`` (its confirmation's, if any)."""
    record = json.loads((out / "mutants" / f"{subject}.json").read_text())
    return record.get("confirmed") or record["verdict"]


def test_a_job_lost_more_than_max_retries_is_an_infrastructure_failure(cluster, shop, tmp_path):
    base, repo = shop
    cluster.wait_nodes(3)
    config = tmp_path / "mutate.toml"
    config.write_text("[limits]\nmax_retries = 0\n")
    out = tmp_path / "run"
    proc = _start(["mutate", repo, "--config", config, "--n", "8", "--seed", "3", "--executor", "ray",
                   "--ray-address", cluster.address, "--out", out, "--json"], tmp_path / "log")
    lost = {p.name.removesuffix(".warm").removeprefix("confirm-") for p in _kill_a_busy_node(cluster, proc)}
    assert proc.returncode in (0, 1), (tmp_path / "log").read_text()[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    failed = [e for e in _events(out) if e["stage"] in ("validate", "confirm") and e["failure_class"]]
    assert failed and all(e["failure_class"] == "infrastructure" for e in failed)
    assert lost & {e["subject"] for e in failed}, (lost, failed)
    # a job whose pytest the kill ended while its Ray worker still reported (exit -9) is an
    # infrastructure failure too; the one Ray lost says how many times it was lost
    verdicts = [_verdict(out, e["subject"]) for e in failed]
    assert all(v["status"] == "crash" for v in verdicts), verdicts
    assert any("infrastructure: the job was lost 1 time" in v["detail"] for v in verdicts), verdicts
    assert summary["mutants"] == len(list((out / "mutants").glob("*.json")))  # the run completed


def test_a_killed_driver_resumes_from_its_receipts(cluster, shop):
    base, repo = shop
    cluster.wait_nodes(3)
    out = base / "killed-driver"
    args = ["mutate", repo, "--n", "8", "--seed", "3", "--executor", "ray", "--ray-address", cluster.address,
            "--out", out, "--json"]
    proc = _start(args, base / "killed-driver.log")

    def decided():
        return [e for e in _events(out) if e["stage"] == "validate" and e["status"] == "progress"]

    _wait_until(proc, lambda: len(decided()) >= 2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    finished = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in (out / "mutants").glob("*.json")
                if "verdict" in json.loads(p.read_text())}
    assert len(finished) >= 2
    assert not (out / "summary.json").exists()
    first_events = len(_events(out))
    done = _gen09(*args)
    assert done.returncode == 0, done.stderr[-3000:]
    resumed = _events(out)[first_events:]
    started = next(e for e in resumed if e["stage"] == "validate" and e["status"] == "started")
    assert started["detail"]["decided_without_running"] >= len(finished)
    ran = {e["subject"] for e in resumed if e["stage"] == "validate" and e["status"] == "progress"}
    assert not ran & {name.removesuffix(".json") for name in finished}  # no finished job ran again
    for name, (data, mtime) in finished.items():
        path = out / "mutants" / name
        assert path.stat().st_mtime_ns == mtime or json.loads(path.read_text())["verdict"] == \
            json.loads(data)["verdict"]
    assert next(e for e in resumed if e["stage"] == "baseline")["status"] == "skipped"
    assert _instances(out) == _instances(base / "local")
    assert _bundles(out) == _bundles(base / "local")


# -- without the extra ---------------------------------------------------------------------------


BLOCK_RAY = ("import sys; sys.modules['ray'] = None; sys.argv = ['gen09'] + sys.argv[1:]; "
             "from gen09_core.cli import main; main()")


@pytest.mark.parametrize("command", ["mutate", "verify", "ab"])
def test_without_ray_the_ray_executor_is_a_clear_exit_2(command, tmp_path):
    repo = tmp_path / "shop"
    shutil.copytree(SHOP, repo)
    out = tmp_path / "out"
    if command == "mutate":
        args = ["mutate", repo, "--executor", "ray", "--out", out]
    elif command == "verify":
        bundle = tmp_path / "bundle"
        for rel in ("task.toml", "tests/test.sh", "environment/repo/x.py"):
            (bundle / rel).parent.mkdir(parents=True, exist_ok=True)
            (bundle / rel).write_text("")
        args = ["verify", bundle, "--executor", "ray"]
    else:
        args = ["ab", repo, "--generator", "template", "--executor", "ray", "--out", out]
    # sys.modules['ray'] = None makes `import ray` raise ImportError, as on a machine without Ray
    done = subprocess.run([sys.executable, "-c", BLOCK_RAY, *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "gen09[ray]" in lines[0] and "Traceback" not in done.stderr
    assert not out.exists()


# -- snapshots -----------------------------------------------------------------------------------


def test_a_snapshot_is_deterministic_and_materialises_byte_for_byte(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(REALISTIC, src)
    (src / "link.py").symlink_to("src/tally/core.py")
    first, second = snapshot.pack(src), snapshot.pack(src)
    assert first == second
    folder = snapshot.materialise(first.digest, first.data, tmp_path / "node")
    assert tree_bytes(folder) == tree_bytes(src)
    assert os.readlink(folder / "link.py") == "src/tally/core.py"
    assert snapshot.materialise(first.digest, first.data, tmp_path / "node") == folder  # once per digest
    (src / "README.md").write_text("changed\n")
    assert snapshot.pack(src).digest != first.digest
    with pytest.raises(ValueError, match="do not match"):
        snapshot.materialise("0" * 24, first.data, tmp_path / "node")
