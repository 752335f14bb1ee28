"""How much validation costs per valid task: the whole suite per mutant (SWE-smith's way), a
fresh process with coverage selection, and a warm forking worker with coverage selection —
on real libraries, in one run, with the task sets compared exactly.

Run from the repository root::

    .venv/bin/python bench/bench_mutate_validation.py                  # the default libraries, 30 mutants
    .venv/bin/python bench/bench_mutate_validation.py --only toolz --n 60

For each library (pinned sdist, fetched once with ``pip download``) ``gen09 mutate`` runs three
times with the same seed and limits, so the same mutants are generated:

- ``full``: ``selection = "full"``, ``runner = "fresh"`` — every stable test, a new pytest process
  per mutant;
- ``coverage-fresh``: ``selection = "coverage"``, ``runner = "fresh"`` — the covering tests first,
  on to every stable test only when one fails (the confirmation), a new process per mutant;
- ``coverage-warm``: the same selection on warm workers that collect once and fork per mutant.

Reported per accepted (valid) task: runner wall seconds and CPU seconds of the mutant phase
(validation + confirmation, plus the warm workers' start-up and own CPU; the shared pristine
baseline is excluded), and the floor: the summed durations of the test phases the warm run
actually executed. All three runs must accept the same tasks with the same FAIL_TO_PASS and
PASS_TO_PASS sets; any difference is printed and makes the exit status 1. JSON goes to
``bench/results/mutate_validation.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from datetime import date

from common import CACHE, RESULTS, cpu_model, fetch_sdist

from gen09_core.mutate.pipeline import run

LIBRARIES = (  # name, version, why it is here
    ("toolz", "1.0.0", "fast tests, fast imports"),
    ("humanize", "4.12.3", "tests import freezegun and dateutil"),
    ("cachetools", "5.5.2", "unittest-style suite"),
    ("inflect", "7.5.0", "imports typeguard and more_itertools: a slow import next to fast tests"),
)
MODES = {"full": ("full", "fresh"), "coverage-fresh": ("coverage", "fresh"),
         "coverage-warm": ("coverage", "warm")}


def _tasks(out) -> dict:
    records = [json.loads(x) for x in (out / "instances.jsonl").read_text().splitlines()]
    return {r["instance_id"]: (tuple(r["FAIL_TO_PASS"]), tuple(r["PASS_TO_PASS"])) for r in records}


def one(name: str, version: str, n: int, seed: int, workers: int) -> dict:
    repo = fetch_sdist(name, version)
    row = {"library": f"{name}=={version}"}
    tasks = {}
    for mode, (selection, runner) in MODES.items():
        out = CACHE / "runs" / f"bench-validation-{name}-{mode}"
        shutil.rmtree(out, ignore_errors=True)
        data = {"source": {"repo": str(repo)}, "seeds": {"mutate": seed},
                "limits": {"max_mutants": n, "workers": workers, "runner": runner},
                "recipe": {"swe_smith": {"selection": selection}}}
        print(f"== {name} {mode}", file=sys.stderr)
        start = time.perf_counter()
        summary = run(data, out)
        wall = time.perf_counter() - start
        accepted = summary["accepted"]
        secs = sum(v for k, v in summary["runner_seconds"].items() if k != "baseline")
        cpu = sum(summary["runner_cpu_seconds"].values())
        floor = sum(summary["test_seconds"].values())
        row[mode] = {"mutants": summary["mutants"], "accepted": accepted, "wall_s": round(wall, 1),
                     "runner_s": round(secs, 2), "runner_cpu_s": round(cpu, 2), "test_s": round(floor, 2),
                     "runner_s_per_task": round(secs / accepted, 3) if accepted else None,
                     "runner_cpu_s_per_task": round(cpu / accepted, 3) if accepted else None,
                     "floor_s_per_task": round(floor / accepted, 3) if accepted else None,
                     "runs_by_runner": summary["runs_by_runner"], "warm_workers": summary["warm_workers"]}
        tasks[mode] = _tasks(out)
    row["identical_tasks"] = tasks["full"] == tasks["coverage-fresh"] == tasks["coverage-warm"]
    row["differences"] = {} if row["identical_tasks"] else {
        mode: sorted(set(tasks[mode].items()) ^ set(tasks["full"].items()), key=str)[:5]
        for mode in ("coverage-fresh", "coverage-warm")}
    full, warm = row["full"], row["coverage-warm"]
    if full["runner_s_per_task"] and warm["runner_s_per_task"]:
        row["full_over_warm_wall"] = round(full["runner_s_per_task"] / warm["runner_s_per_task"], 2)
        row["full_over_warm_cpu"] = round(full["runner_cpu_s_per_task"] / warm["runner_cpu_s_per_task"], 2)
        row["warm_over_floor"] = round(warm["runner_s_per_task"] / warm["floor_s_per_task"], 2) \
            if warm["floor_s_per_task"] else None
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="mutants per library")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated sdist names")
    args = parser.parse_args()
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    rows = [one(n, v, args.n, args.seed, args.workers) for n, v, _ in LIBRARIES if not wanted or n in wanted]
    report = {"date": date.today().isoformat(), "cpu": cpu_model(), "nproc": os.cpu_count(),
              "python": sys.version.split()[0], "n": args.n, "seed": args.seed, "workers": args.workers,
              "libraries": rows}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mutate_validation.json").write_text(json.dumps(report, indent=2) + "\n")
    print("| library | mode | mutants | valid tasks | runner s / task | runner CPU s / task "
          "| floor s / task |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        for mode in MODES:
            m = r[mode]
            print(f"| {r['library']} | {mode} | {m['mutants']} | {m['accepted']} | "
                  f"{m['runner_s_per_task']} | {m['runner_cpu_s_per_task']} | {m['floor_s_per_task']} |")
    print()
    for r in rows:
        print(f"{r['library']}: whole suite / warm = {r.get('full_over_warm_wall')}x wall, "
              f"{r.get('full_over_warm_cpu')}x CPU per valid task; "
              f"warm / floor = {r.get('warm_over_floor')}x; "
              f"identical task sets: {r['identical_tasks']} {r['differences'] or ''}")
    print(f"{report['date']}, {report['cpu']}, {report['nproc']} CPUs, Python {report['python']}")
    return 0 if all(r["identical_tasks"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
