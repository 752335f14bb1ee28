"""`gen09 verify` of many bundles of one repository: every pytest run in a new interpreter
(``--runner fresh``, how verify ran before the warm service) against the warm service
(``--runner warm``, the default), in one run, interleaved, on the same bundles.

Run from the repository root, on the output of a ``gen09 mutate`` run with ≥ N tasks (for
example one of ``bench_mutate_validation.py``'s)::

    .venv/bin/python bench/bench_verify.py bench/.cache/runs/compare-boltons-warm
    .venv/bin/python bench/bench_verify.py RUN --n 30 --reps 3

Every verification must pass (nop 0, oracle 1) and both runners must give every bundle the
same nop and oracle rewards; a difference is printed and makes the exit status 1. Prints the
wall seconds and the CPU seconds (``gen09 verify`` and every process it waited for) of each
``gen09 verify --json``, how many pytest runs were warm, and the reasons of the others;
writes ``bench/results/verify.json``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

from common import CACHE, RESULTS, cpu_model


def verify(folder: Path, runner: str) -> tuple[float, float, dict]:
    """Wall seconds, CPU seconds and the JSON report of ``gen09 verify folder --runner R --json``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    command = [sys.executable, "-m", "gen09_core", "verify", str(folder), "--json", "--runner", runner]
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        raise SystemExit(f"gen09 verify --runner {runner} {folder} failed ({done.returncode}): "
                         f"{done.stdout[-600:]} {done.stderr[-600:]}")
    return seconds, cpu, json.loads(done.stdout)


def main() -> None:
    """Verify the bundles ``--reps`` times with each runner, alternating which goes first."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a gen09 mutate output folder with >= N bundles")
    parser.add_argument("--n", type=int, default=30, help="bundles to verify (default 30)")
    parser.add_argument("--reps", type=int, default=2, help="verifications with each runner (default 2)")
    args = parser.parse_args()
    bundles = sorted(p for p in (args.run / "tasks").iterdir() if (p / "task.toml").is_file())[:args.n]
    if len(bundles) < args.n:
        raise SystemExit(f"{args.run} has {len(bundles)} bundles, fewer than --n {args.n}")
    folder = CACHE / "verify-bench" / "tasks"
    shutil.rmtree(folder.parent, ignore_errors=True)
    for bundle in bundles:
        shutil.copytree(bundle, folder / bundle.name, symlinks=True)
    verify(folder, "fresh")  # builds (or finds) the bundles' locked venv outside the timing
    wall, cpu = {"fresh": [], "warm": []}, {"fresh": [], "warm": []}
    rewards, reasons = {}, collections.Counter()
    load = [os.getloadavg()[0]]
    warm_runs = []
    for rep in range(args.reps):
        for runner in (("fresh", "warm") if rep % 2 == 0 else ("warm", "fresh")):
            seconds, used, report = verify(folder, runner)
            if report["ok"] != report["total"] or report["total"] != args.n:
                raise SystemExit(f"{runner}: {report['ok']} of {report['total']} bundles verified")
            wall[runner].append(round(seconds, 2))
            cpu[runner].append(round(used, 2))
            rewards.setdefault(runner, {b["bundle"]: (b["nop"], b["oracle"]) for b in report["bundles"]})
            trials = [part.split(" ", 1)[1] for b in report["bundles"] for part in b["runners"].split("; ")]
            if runner == "warm":
                if not warm_runs:  # the reasons of the first warm verification
                    reasons.update(t for t in trials if t != "warm")
                warm_runs.append(sum(t == "warm" for t in trials))
            print(f"{runner}: {seconds:.1f} s wall, {used:.1f} CPU-s for {args.n} bundles", flush=True)
    load.append(os.getloadavg()[0])
    same = rewards["fresh"] == rewards["warm"]
    median = {r: (statistics.median(wall[r]), statistics.median(cpu[r])) for r in wall}
    print("\n| bundles | fresh: wall s / CPU s | warm: wall s / CPU s | fresh / warm (wall, CPU) | "
          "warm pytest runs | rewards identical |\n|---:|---:|---:|---:|---:|---|\n"
          f"| {args.n} | {median['fresh'][0]:.1f} / {median['fresh'][1]:.1f} | {median['warm'][0]:.1f} / "
          f"{median['warm'][1]:.1f} | {median['fresh'][0] / median['warm'][0]:.2f}x, "
          f"{median['fresh'][1] / median['warm'][1]:.2f}x | {min(warm_runs)} of {2 * args.n} | "
          f"{'yes' if same else 'NO'} |")
    for reason, count in reasons.most_common():
        print(f"  run fresh ({count}x): {reason[:200]}")
    print(f"load average {load[0]:.1f} at the start, {load[1]:.1f} at the end; {cpu_model()}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "verify.json").write_text(json.dumps(
        {"date": date.today().isoformat(), "cpu": cpu_model(), "nproc": os.cpu_count(), "run": str(args.run),
         "n": args.n, "wall_seconds": wall, "cpu_seconds": cpu, "warm_runs": warm_runs,
         "fresh_reasons": dict(reasons), "rewards_identical": same, "load": load}, indent=1) + "\n",
        encoding="utf-8")
    if not same:
        for bundle, fresh in rewards["fresh"].items():
            if rewards["warm"].get(bundle) != fresh:
                print(f"DIFFERENT {bundle}: fresh {fresh}, warm {rewards['warm'].get(bundle)}")
        sys.exit(1)


if __name__ == "__main__":
    main()
