"""What the Ray executor costs and gives: one ``gen09 mutate`` validation of a real library on
the local executor and on a local Ray cluster started here, in one run, with the task sets
compared exactly.

Run from the repository root (needs the ``ray`` extra)::

    .venv/bin/python bench/bench_ray_executor.py                    # toolz 1.0.0, 16 mutants
    .venv/bin/python bench/bench_ray_executor.py --only toolz --n 30

The cluster is the tests' one (``tests/ray_cluster.py``): a head node with no CPUs and two
worker nodes with one CPU each, so it has as many job slots as the local executor's two
workers. Every run uses ``runner = "fresh"`` (the Ray path runs each job in a fresh process;
``local-warm`` is shown for reference). Runs:

- ``local``: ``executor = "local"``, two workers;
- ``ray-cold``: ``executor = "ray"`` on the new cluster: each worker node materialises the
  snapshot and rebuilds the venv from the lock in its first job;
- ``ray-warm``: the same again into a new run folder: the nodes' snapshot and venv caches hold.

Reported per run, from the run's own events and summary: the wall seconds of the mutant stages
(validation + confirmation, from the ``validate started`` to the ``confirm done`` event), the
jobs run, the summed runner seconds of those jobs, the throughput (jobs per wall second) and the
*non-test seconds per job*: ``wall x slots / jobs - runner seconds / jobs``, the time a slot
spends per job outside the job's own test process (dispatch, transfer, materialising, result).
The Ray per-job overhead is ``ray-warm``'s non-test seconds per job minus ``local``'s; the
throughput ratio is ``ray-warm`` over ``local``. JSON goes to ``bench/results/ray_executor.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from datetime import date, datetime
from pathlib import Path

from common import CACHE, RESULTS, ROOT, cpu_model, fetch_sdist

sys.path.insert(0, str(ROOT))

from gen09_core.mutate.pipeline import run  # noqa: E402
from tests.ray_cluster import LocalCluster  # noqa: E402

LIBRARIES = (("toolz", "1.0.0"),)
SLOTS = 2


def _tasks(out: Path) -> dict:
    records = [json.loads(x) for x in (out / "instances.jsonl").read_text().splitlines()]
    return {r["instance_id"]: (tuple(r["FAIL_TO_PASS"]), tuple(r["PASS_TO_PASS"])) for r in records}


def _stage_wall(out: Path) -> float:
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    start = next(e["time"] for e in events if e["stage"] == "validate" and e["status"] == "started")
    end = next(e["time"] for e in events if e["stage"] == "confirm" and e["status"] == "done")
    return end - start


def one_run(repo: Path, label: str, n: int, seed: int, limits: dict) -> dict:
    out = CACHE / "runs" / f"bench-ray-{repo.name}-{label}"
    shutil.rmtree(out, ignore_errors=True)
    data = {"source": {"repo": str(repo)}, "seeds": {"mutate": seed},
            "limits": {"max_mutants": n, "workers": SLOTS, **limits}}
    print(f"== {repo.name} {label}", file=sys.stderr)
    start = time.perf_counter()
    summary = run(data, out)
    wall = time.perf_counter() - start
    jobs = sum(summary["runs_by_runner"].values()) - summary["outcomes"]["uncovered"]
    runner_s = summary["runner_seconds"]["validation"] + summary["runner_seconds"]["confirmation"]
    stage = _stage_wall(out)
    return {"run_wall_s": round(wall, 1), "mutant_stage_wall_s": round(stage, 2), "jobs": jobs,
            "runner_s": round(runner_s, 2), "accepted": summary["accepted"],
            "jobs_per_s": round(jobs / stage, 3) if stage else None,
            "non_test_s_per_job": round((stage * SLOTS - runner_s) / jobs, 3) if jobs else None,
            "runs_by_runner": summary["runs_by_runner"], "tasks": _tasks(out)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=16, help="mutants")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="comma-separated sdist names")
    args = parser.parse_args()
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    rows = []
    cluster_start = time.perf_counter()
    cluster = LocalCluster(workers=2, cpus=1, memory_mb=8192, root=CACHE / "ray-cluster")
    cluster_seconds = time.perf_counter() - cluster_start
    try:
        for name, version in LIBRARIES:
            if wanted and name not in wanted:
                continue
            repo = fetch_sdist(name, version)
            row = {"library": f"{name}=={version}"}
            row["local"] = one_run(repo, "local", args.n, args.seed, {"runner": "fresh"})
            row["local-warm"] = one_run(repo, "local-warm", args.n, args.seed, {"runner": "warm"})
            ray = {"executor": "ray", "ray_address": cluster.address, "runner": "fresh"}
            row["ray-cold"] = one_run(repo, "ray-cold", args.n, args.seed, ray)
            row["ray-warm"] = one_run(repo, "ray-warm", args.n, args.seed, ray)
            tasks = [row[k].pop("tasks") for k in ("local", "local-warm", "ray-cold", "ray-warm")]
            row["identical_tasks"] = all(t == tasks[0] for t in tasks)
            local, warm = row["local"], row["ray-warm"]
            row["ray_overhead_s_per_job"] = round(warm["non_test_s_per_job"] - local["non_test_s_per_job"], 3)
            row["throughput_ray_over_local"] = round(warm["jobs_per_s"] / local["jobs_per_s"], 3)
            cold = row["ray-cold"]["jobs_per_s"]
            row["throughput_ray_cold_over_local"] = round(cold / local["jobs_per_s"], 3)
            rows.append(row)
    finally:
        cluster.stop()
    report = {"date": date.today().isoformat(), "time": datetime.now().isoformat(timespec="seconds"),
              "cpu": cpu_model(), "nproc": os.cpu_count(), "load_average": os.getloadavg(),
              "python": sys.version.split()[0], "ray": __import__("ray").__version__, "n": args.n,
              "seed": args.seed, "slots": SLOTS, "cluster_start_s": round(cluster_seconds, 1),
              "libraries": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "ray_executor.json").write_text(json.dumps(report, indent=2) + "\n")
    print("| library | run | jobs | mutant-stage wall s | runner s | jobs / s | non-test s / job "
          "| accepted |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        for key in ("local", "local-warm", "ray-cold", "ray-warm"):
            m = r[key]
            print(f"| {r['library']} | {key} | {m['jobs']} | {m['mutant_stage_wall_s']} | {m['runner_s']} | "
                  f"{m['jobs_per_s']} | {m['non_test_s_per_job']} | {m['accepted']} |")
    print()
    for r in rows:
        print(f"{r['library']}: Ray per-job overhead {r['ray_overhead_s_per_job']} s; "
              f"throughput ray / local = {r['throughput_ray_over_local']}x "
              f"(cold cluster {r['throughput_ray_cold_over_local']}x); "
              f"identical task sets: {r['identical_tasks']}")
    print(f"{report['date']}, {report['cpu']}, {report['nproc']} CPUs, load {report['load_average']}, "
          f"Python {report['python']}, Ray {report['ray']}; cluster start {report['cluster_start_s']} s")
    return 0 if all(r["identical_tasks"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
