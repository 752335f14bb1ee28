"""Coverage-selected validation vs the whole suite per mutant (SWE-smith's way), one run.

Run from the repository root::

    .venv/bin/python bench/bench_mutate_validation.py            # toolz 1.0.0, 80 mutants
    .venv/bin/python bench/bench_mutate_validation.py --n 40

What it does:

1. Fetches the pinned toolz sdist with ``pip download`` into ``bench/.cache`` (once).
2. Runs ``repo_mutate`` / ``swe_smith`` twice on it with the same seed and limits, so the
   two runs generate the same mutants: ``selection = "coverage"`` (run only the tests that
   executed the mutated lines, reject uncovered mutants without running, confirm each
   accepted task once with its full F2P + P2P set) and ``selection = "full"`` (every stable
   test per mutant).
3. Reports test-runner seconds (the summed wall time of the test-runner processes, and their
   CPU time from ``os.wait4``, which other load on the machine disturbs less) for the
   mutant phase (validation + confirmation; the shared pristine baseline is listed apart),
   per accepted task, and their ratio; and checks that both modes accept the same tasks with
   the same FAIL_TO_PASS and PASS_TO_PASS sets.
   ``--confirm separate`` confirms in a second process instead of going on in the same one.
4. Prints a markdown table and writes JSON to ``bench/results/mutate_validation_<confirm>.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time

from common import CACHE, RESULTS, fetch_sdist, machine

from gen09_core.mutate.pipeline import run


def _tasks(out) -> dict:
    lines = (out / "instances.jsonl").read_text().splitlines()
    return {json.loads(x)["instance_id"]: json.loads(x) for x in lines}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=80, help="mutants to validate")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--confirm", choices=["same_run", "separate"], default="same_run",
                        help="how coverage mode confirms a caught mutant")
    args = parser.parse_args()
    repo = fetch_sdist("toolz", "1.0.0")
    results = {}
    for selection in ("coverage", "full"):
        out = CACHE / "runs" / f"bench-validation-{selection}"
        shutil.rmtree(out, ignore_errors=True)
        data = {"source": {"repo": str(repo), "name": "pytoolz/toolz"},
                "limits": {"max_mutants": args.n, "workers": args.workers},
                "seeds": {"mutate": args.seed},
                "recipe": {"swe_smith": {"selection": selection, "confirm": args.confirm}}}
        start = time.perf_counter()
        summary = run(data, out)
        wall = time.perf_counter() - start
        secs = summary["runner_seconds"]
        mutant_secs = secs["validation"] + secs["confirmation"]
        cpu = summary["runner_cpu_seconds"]
        mutant_cpu = cpu["validation"] + cpu["confirmation"]
        results[selection] = {
            "out": str(out), "wall_seconds": round(wall, 1), "mutants": summary["mutants"],
            "accepted": summary["accepted"], "baseline_runner_seconds": secs["baseline"],
            "validation_runner_seconds": secs["validation"],
            "confirmation_runner_seconds": secs["confirmation"],
            "mutant_runner_seconds": round(mutant_secs, 2),
            "runner_seconds_per_accepted_task": round(mutant_secs / summary["accepted"], 3)
            if summary["accepted"] else None,
            "mutant_runner_cpu_seconds": round(mutant_cpu, 2),
            "runner_cpu_seconds_per_accepted_task": round(mutant_cpu / summary["accepted"], 3)
            if summary["accepted"] else None,
            "uncovered_rejected_without_running": sum(s.get("uncovered", 0)
                                                      for s in summary["per_modifier"].values()),
        }
        results[selection]["tasks"] = _tasks(out)
    cov, full = results["coverage"], results["full"]
    same_tasks = sorted(cov["tasks"]) == sorted(full["tasks"])
    same_sets = same_tasks and all(
        cov["tasks"][k]["FAIL_TO_PASS"] == full["tasks"][k]["FAIL_TO_PASS"]
        and cov["tasks"][k]["PASS_TO_PASS"] == full["tasks"][k]["PASS_TO_PASS"] for k in cov["tasks"])
    only_cov = sorted(set(cov["tasks"]) - set(full["tasks"]))
    only_full = sorted(set(full["tasks"]) - set(cov["tasks"]))
    ratio = (full["runner_seconds_per_accepted_task"] / cov["runner_seconds_per_accepted_task"]
             if cov["runner_seconds_per_accepted_task"] and full["runner_seconds_per_accepted_task"]
             else None)
    cov_cpu = cov["runner_cpu_seconds_per_accepted_task"]
    full_cpu = full["runner_cpu_seconds_per_accepted_task"]
    cpu_ratio = full_cpu / cov_cpu if cov_cpu and full_cpu else None
    report = {
        "library": "toolz==1.0.0", "seed": args.seed, "n": args.n, "workers": args.workers,
        "confirm": args.confirm,
        "machine": machine(shutil.which("ruff") or sys.executable.replace("python", "ruff")),
        "coverage": {k: v for k, v in cov.items() if k != "tasks"},
        "full": {k: v for k, v in full.items() if k != "tasks"},
        "ratio_runner_seconds_per_task_full_over_coverage": round(ratio, 2) if ratio else None,
        "ratio_runner_cpu_seconds_per_task_full_over_coverage": round(cpu_ratio, 2) if cpu_ratio else None,
        "same_accepted_tasks": same_tasks, "same_f2p_p2p_sets": same_sets,
        "only_in_coverage": only_cov, "only_in_full": only_full,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / f"mutate_validation_{args.confirm}.json").write_text(json.dumps(report, indent=2) + "\n")
    print("| mode | mutants | accepted | uncovered (no run) | runner s | runner s / task "
          "| runner CPU s | runner CPU s / task |")
    print("|---|---|---|---|---|---|---|---|")
    for name, r in (("coverage", cov), ("full", full)):
        print(f"| {name} | {r['mutants']} | {r['accepted']} | {r['uncovered_rejected_without_running']} | "
              f"{r['mutant_runner_seconds']} | {r['runner_seconds_per_accepted_task']} | "
              f"{r['mutant_runner_cpu_seconds']} | {r['runner_cpu_seconds_per_accepted_task']} |")
    ratio_text = report["ratio_runner_seconds_per_task_full_over_coverage"]
    print(f"\nratio (full / coverage, runner seconds per accepted task): {ratio_text}; "
          f"CPU seconds: {report['ratio_runner_cpu_seconds_per_task_full_over_coverage']}")
    print(f"same accepted tasks: {same_tasks}; same F2P/P2P sets: {same_sets}")
    if only_cov or only_full:
        print(f"only in coverage: {only_cov}\nonly in full: {only_full}")
    return 0 if same_sets else 1


if __name__ == "__main__":
    raise SystemExit(main())
