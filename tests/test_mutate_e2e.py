"""repo_mutate end to end on tests/fixtures/mutate_repo: real pytest runs in subprocesses,
mutants → validation → Harbor bundles → ``gen09 verify`` (nop 0 / oracle 1)."""

import json
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.helpers import MUTATE_FIXTURE, ROOT, run_gen09

FIXTURE = MUTATE_FIXTURE
FLAKY = "tests/check_flaky.py::test_sometimes"
ORDER = "tests/check_order.py::test_needs_the_marker"
ARGS = ("--max-mutants", "8", "--seed", "3", "--workers", "2")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("mutate")
    repo = base / "shop"
    shutil.copytree(FIXTURE, repo)
    first = run_gen09("mutate", repo, *ARGS, "--out", base / "run1")
    second = run_gen09("mutate", repo, *ARGS, "--out", base / "run2")
    return {"repo": repo, "base": base, "first": first, "second": second}


def _summary(path):
    return json.loads((path / "summary.json").read_text())


def _instances(path):
    return [json.loads(line) for line in (path / "instances.jsonl").read_text().splitlines()]


def test_run_exports_tasks_and_writes_config_first(runs):
    done = runs["first"]
    assert done.returncode == 0, done.stderr
    out = runs["base"] / "run1"
    summary = _summary(out)
    assert summary["exported"] >= 1
    assert summary["exported"] == len(list((out / "tasks").iterdir()))
    config = json.loads((out / "config.json").read_text())
    assert config["pipeline"] == {"name": "repo_mutate", "recipe": "swe_smith"}
    assert config["source"]["revision"].startswith("tree-sha256:")
    assert config["recipe"]["swe_smith"]["selection"] == "coverage"
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert events[0]["stage"] == "config"  # written and announced before any work
    stages = {e["stage"] for e in events}
    assert {"source", "environment", "baseline", "generate", "validate", "confirm", "export"} <= stages
    receipts = [json.loads(line) for line in (out / "receipts.jsonl").read_text().splitlines()]
    assert all(r["digest"].startswith("sha256:") for r in receipts)
    assert {"config", "baseline", "export", "instances"} <= {r["stage"] for r in receipts}


def test_instances_have_swe_smith_fields(runs):
    out = runs["base"] / "run1"
    for inst in _instances(out):
        assert {"instance_id", "repo", "base_commit", "patch", "FAIL_TO_PASS", "PASS_TO_PASS",
                "problem_statement", "image_name"} <= inst.keys()
        assert inst["FAIL_TO_PASS"] and inst["PASS_TO_PASS"]
        assert not set(inst["FAIL_TO_PASS"]) & set(inst["PASS_TO_PASS"])
        assert inst["patch"].startswith("diff --git a/")


def test_verify_nop_zero_oracle_one(runs):
    out = runs["base"] / "run1"
    done = run_gen09("verify", out, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["total"] == _summary(out)["exported"]
    for bundle in report["bundles"]:
        assert bundle["nop"] == 0 and bundle["oracle"] == 1 and bundle["hash_ok"]


def test_bundle_layout_and_task_toml(runs):
    for bundle in sorted((runs["base"] / "run1" / "tasks").iterdir()):
        for rel in ("instruction.md", "task.toml", "environment/Dockerfile", "solution/solve.sh",
                    "tests/test.sh"):
            assert (bundle / rel).is_file(), rel
        toml = tomllib.loads((bundle / "task.toml").read_text())
        assert toml["task"]["name"].startswith("gen09/")
        meta = toml["metadata"]
        assert meta["recipe"] == "swe_smith" and meta["seed"] == 3
        assert meta["task_hash"].startswith("sha256:")
        assert set(meta["asset_digests"]) >= {"snapshot", "dockerfile", "test_sh", "solve_sh"}
        assert toml["verifier"]["timeout_sec"] > 0 and toml["environment"]["memory_mb"] > 0
        script = (bundle / "tests" / "test.sh").read_text()
        assert "/logs/verifier" in script and "--tb=native" in script  # a readable log for people


def test_snapshots_do_not_leak(runs):
    out = runs["base"] / "run1"
    pristine = runs["repo"]
    for inst in _instances(out):
        bundle = out / inst["task"]
        snap = bundle / "environment" / "repo"
        files = [p for p in snap.rglob("*")]
        names = {p.name for p in files}
        assert not names & {".git", "__pycache__", ".pytest_cache"}
        assert not [p for p in files if p.suffix in (".pyc", ".orig", ".rej", ".bak")]
        for test_file in {t.split("::")[0] for t in inst["FAIL_TO_PASS"]}:
            assert not (snap / test_file).exists()
            assert (bundle / "tests" / "hidden" / test_file).exists()
        changed = inst["entity"].split("::")[0]
        original = (pristine / changed).read_bytes()
        assert (snap / changed).read_bytes() != original
        for path in files:
            if path.is_file():
                assert path.read_bytes() != original
        issue = (bundle / "instruction.md").read_text()
        assert "pytest" not in issue.lower()
        for test in inst["FAIL_TO_PASS"] + inst["PASS_TO_PASS"]:
            assert test.split("::")[-1].split("[")[0] not in issue
        for line in inst["patch"].splitlines():
            if line[:1] in "+-" and not line.startswith(("+++", "---")) and len(line.strip()) > 8:
                assert line[1:].strip() not in issue


def test_flaky_test_is_excluded(runs):
    out = runs["base"] / "run1"
    assert _summary(out)["baseline"]["flaky"] == [FLAKY, ORDER]
    for inst in _instances(out):
        assert FLAKY not in inst["FAIL_TO_PASS"] + inst["PASS_TO_PASS"]


def test_a_test_that_passes_only_after_a_left_out_test_is_excluded(runs):
    """It passed in both whole-suite runs, but not when only the stable tests ran — as every
    bundle's verifier runs them — so no task lists it (and every oracle passes: see
    test_verify_nop_zero_oracle_one)."""
    out = runs["base"] / "run1"
    baseline = _summary(out)["baseline"]
    assert baseline["order_dependent"] == [ORDER]
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    done = next(e for e in events if e["stage"] == "baseline" and e["status"] == "done")
    assert done["detail"]["order_dependent"] == [ORDER]
    for inst in _instances(out):
        assert ORDER not in inst["FAIL_TO_PASS"] + inst["PASS_TO_PASS"]


def test_uncovered_mutants_are_rejected_without_running(runs):
    from gen09_core.mutate.baseline import load_baseline
    from gen09_core.mutate.validate import select_tests

    out = runs["base"] / "run1"
    baseline = load_baseline(out / "baseline.json")
    text = (runs["repo"] / "shop" / "pricing.py").read_text().splitlines()
    legacy = [i for i, line in enumerate(text, 1) if "int(value + 0.5)" in line]
    assert select_tests(baseline, "shop/pricing.py", legacy, "function", (1, 1)) == ()
    shipping = [i for i, line in enumerate(text, 1) if "cost = 25" in line]
    assert select_tests(baseline, "shop/pricing.py", shipping, "function", (1, 1)) == (
        "tests/check_pricing.py::test_shipping[30-25]",)
    for record in (out / "mutants").glob("*.json"):
        verdict = json.loads(record.read_text())["verdict"]
        if verdict["status"] == "uncovered":
            assert verdict["ran"] == [] and verdict["seconds"] == 0.0


def test_same_seed_same_tasks(runs):
    assert runs["second"].returncode == 0, runs["second"].stderr
    one, two = runs["base"] / "run1", runs["base"] / "run2"
    assert (one / "instances.jsonl").read_bytes() == (two / "instances.jsonl").read_bytes()
    assert sorted(p.name for p in (one / "tasks").iterdir()) == sorted(p.name for p in (two / "tasks").iterdir())
    for bundle in (one / "tasks").iterdir():
        a = tomllib.loads((bundle / "task.toml").read_text())["metadata"]["task_hash"]
        b = tomllib.loads((two / "tasks" / bundle.name / "task.toml").read_text())["metadata"]["task_hash"]
        assert a == b


def test_rerun_resumes_without_redoing_work(runs):
    out = runs["base"] / "run1"
    before = _summary(out)
    lines_before = len((out / "events.jsonl").read_text().splitlines())
    done = run_gen09("mutate", runs["repo"], *ARGS, "--out", out)
    assert done.returncode == 0, done.stderr
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()[lines_before:]]
    assert {"stage": "baseline", "status": "skipped"} in [{k: e[k] for k in ("stage", "status")} for e in events]
    assert not [e for e in events if e["stage"] in ("validate", "confirm") and e["status"] == "progress"]
    after = _summary(out)
    assert after["tasks"] == before["tasks"]


def test_confirm_coverage_infers_pass_to_pass_without_a_whole_suite_run(runs, tmp_path):
    """``confirm = "coverage"``: the same tasks with the same FAIL_TO_PASS and PASS_TO_PASS
    sets as the whole-suite confirmation, while each mutant ran only its covering tests."""
    config = tmp_path / "coverage.json"
    config.write_text(json.dumps({"source": {"repo": str(runs["repo"])},
                                  "recipe": {"swe_smith": {"confirm": "coverage"}}}))
    done = run_gen09("mutate", "--config", config, *ARGS, "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    inferred = {r["instance_id"]: r for r in _instances(tmp_path / "out")}
    confirmed = {r["instance_id"]: r for r in _instances(runs["base"] / "run1")}
    assert inferred and inferred.keys() == confirmed.keys()
    for key, record in inferred.items():
        assert record["FAIL_TO_PASS"] == confirmed[key]["FAIL_TO_PASS"]
        assert record["PASS_TO_PASS"] == confirmed[key]["PASS_TO_PASS"]
    summary = _summary(tmp_path / "out")
    stable = summary["baseline"]["stable"]
    assert sum(summary["runs_by_runner"].values()) == summary["mutants"] - summary["outcomes"]["uncovered"]
    for path in (tmp_path / "out" / "mutants").glob("*.json"):
        data = json.loads(path.read_text())
        if data["verdict"]["status"] == "valid":
            assert data["confirmation"].startswith("inferred from coverage")
            assert len(data["verdict"]["ran"]) < stable  # only the covering tests ran
    events = [json.loads(x) for x in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    assert not [e for e in events if e["stage"] == "confirm" and e["status"] == "progress"]


def test_runner_and_confirmation_chosen_on_the_command_line(runs, tmp_path):
    """``--runner fresh --confirm coverage`` reach the run's configuration: every mutant run
    is a new process, and the tasks are the default run's (warm workers, whole-suite
    confirmation), FAIL_TO_PASS and PASS_TO_PASS alike."""
    out = tmp_path / "out"
    done = run_gen09("mutate", runs["repo"], *ARGS, "--runner", "fresh", "--confirm", "coverage", "--out", out)
    assert done.returncode == 0, done.stderr
    config = json.loads((out / "config.json").read_text())
    assert config["limits"]["runner"] == "fresh"
    assert config["recipe"]["swe_smith"]["confirm"] == "coverage"
    assert set(_summary(out)["runs_by_runner"]) == {"fresh"}
    assert f"Mutant runs: {_summary(out)['runs_by_runner']['fresh']} fresh." in done.stdout
    assert set(_summary(runs["base"] / "run1")["runs_by_runner"]) & {"warm"}
    tasks = {r["instance_id"]: (r["FAIL_TO_PASS"], r["PASS_TO_PASS"]) for r in _instances(out)}
    default = {r["instance_id"]: (r["FAIL_TO_PASS"], r["PASS_TO_PASS"]) for r in _instances(runs["base"] / "run1")}
    assert tasks and tasks == default


BAD_CONFIGS = [
    ({"pipeline": {"name": "other"}}, "pipeline.name must be 'repo_mutate'"),
    ({"pipeline": {"recipe": "nope"}}, "pipeline.recipe 'nope' is not a known recipe"),
    ({"limits": {"max_mutants": 5, "bogus": 1}}, "extra fields found (bogus)"),
    ({"limits": {"workers": 0}}, "limits.workers must be > 0"),
    ({"recipe": {"swe_smith": {"selection": "some"}}}, "selection must be 'coverage' or 'full'"),
    ({"recipe": {"swe_smith": {"confirm": "later"}}}, "confirm must be 'same_run', 'separate' or 'coverage'"),
    ({"recipe": {"swe_smith": {"modifiers": ["op_nope"]}}}, "unknown op_nope"),
    ({"recipe": {"swe_smith": {"colour": "red"}}}, "extra fields found (colour)"),
    ({"profile": "missing"}, "profile 'missing' is not defined"),
    ({"models": {"issue_writer": {"model": "x"}}}, "models.issue_writer"),
    ({"source": {"repo": "/no/such/folder"}}, "is not a folder"),
]


@pytest.mark.parametrize(("patch", "message"), BAD_CONFIGS, ids=[m for _, m in BAD_CONFIGS])
def test_bad_configuration_exits_2_with_a_clear_message(tmp_path, patch, message):
    from gen09_core.mutate.config import merge

    data = merge({"source": {"repo": str(FIXTURE)}}, patch)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    done = run_gen09("mutate", "--config", path, "--out", tmp_path / "out")
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # nothing written before the config is known good


def test_toml_config_with_unknown_table_is_rejected(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(f'[source]\nrepo = "{FIXTURE}"\n\n[limitz]\nmax_mutants = 3\n')
    done = run_gen09("mutate", "--config", path, "--out", tmp_path / "out")
    assert done.returncode == 2 and "extra fields found (limitz)" in done.stderr


def test_other_configuration_into_same_folder_is_refused(runs):
    done = run_gen09("mutate", runs["repo"], "--max-mutants", "8", "--seed", "4", "--out", runs["base"] / "run1")
    assert done.returncode == 2
    assert "different configuration" in done.stderr


def test_verify_rejects_a_tampered_bundle(runs, tmp_path):
    bundle = sorted((runs["base"] / "run1" / "tasks").iterdir())[0]
    copy = tmp_path / bundle.name
    shutil.copytree(bundle, copy)
    (copy / "solution" / "solve.sh").write_text("#!/usr/bin/env bash\ntrue\n")
    done = run_gen09("verify", copy, "--json")
    assert done.returncode == 1
    result = json.loads(done.stdout)["bundles"][0]
    assert not result["hash_ok"] and result["oracle"] == 0


def test_verify_names_the_bundle_whose_tree_cannot_install(runs, tmp_path):
    """pyhcl 0.4.5: one bundle's buggy tree broke its own build, and ``gen09 verify`` of 13
    bundles stopped with "could not install the repository", naming none of them."""
    bundle = sorted((runs["base"] / "run1" / "tasks").iterdir())[0]
    copy = tmp_path / bundle.name
    shutil.copytree(bundle, copy)
    (copy / "environment" / "repo" / "setup.py").write_text("raise SystemExit('the tables do not build')\n")
    lock = copy / "environment" / "gen09.lock"  # an installed project, as pyhcl's
    lock.write_text(lock.read_text().replace("# project: \n", "# project: shop\n"))
    done = run_gen09("verify", copy, "--json")
    assert done.returncode == 3, done.stdout + done.stderr
    assert done.stderr.startswith(f"gen09: error: {bundle.name}: could not install the repository (pip exit 1"), \
        done.stderr
    assert "the tables do not build" in done.stderr


def test_verify_without_bundles_exits_2(tmp_path):
    done = run_gen09("verify", tmp_path)
    assert done.returncode == 2 and "no Harbor bundle" in done.stderr


def test_example_config_is_valid():
    from gen09_core.mutate.config import load_file
    from gen09_core.mutate.pipeline import prepare

    data = load_file(ROOT / "examples" / "mutate.toml")
    data["source"]["repo"] = str(FIXTURE)
    recipe, config, options, profile, _, _ = prepare(data, Path("unused"))
    assert recipe.name == "swe_smith" and profile.name == "shop" and config.seeds.mutate == 7


@pytest.mark.skipif(not os.environ.get("GEN09_HARBOR_PYTHON"),
                    reason="set GEN09_HARBOR_PYTHON to a Python >= 3.12 that has harbor installed")
def test_bundles_load_and_lint_with_harbor(runs):
    python = os.environ["GEN09_HARBOR_PYTHON"]
    bundles = [str(p) for p in sorted((runs["base"] / "run1" / "tasks").iterdir())]
    load = "import sys\nfrom harbor.models.task.task import Task\nfor p in sys.argv[1:]:\n    Task(p)\n"
    done = subprocess.run([python, "-c", load, *bundles], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([str(Path(python).parent / "harbor"), "lint", *bundles], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_run_that_finds_nothing_to_mutate_says_why(tmp_path):
    """fast-deep-equal 3.1.3: its code is built from a template (``src/index.jst``), and the run
    printed only an empty table and "No task was exported"."""
    from gen09_core.mutate.config import merge

    data = merge({"source": {"repo": str(FIXTURE)}},
                 {"recipe": {"swe_smith": {"exclude": ["shop/cart.py", "shop/pricing.py"]}}})
    path = tmp_path / "nothing.json"
    path.write_text(json.dumps(data))
    done = run_gen09("mutate", "--config", path, "--out", tmp_path / "out")
    assert done.returncode == 1, done.stdout + done.stderr
    said = " ".join(done.stdout.split())
    assert ("No mutant was made: no source file is left to mutate, and 1 more were left out as no test ran a "
            "line of them") in said  # shop/__init__.py runs only at import
    assert _summary(tmp_path / "out")["generate"] == {"files": 0, "candidates": 0, "never_run_files": 1}
