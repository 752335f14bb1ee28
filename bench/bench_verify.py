"""`gen09 verify` of many bundles of one repository: the bundles as this version writes them
(pytest with ``--tb=native``) against the same bundles as the previous version wrote them
(pytest's default long traceback), in one run, interleaved.

Run from the repository root, on the output of a ``gen09 mutate`` run with ≥ 30 tasks (for
example one of ``bench_mutate_validation.py``'s)::

    .venv/bin/python bench/bench_verify.py bench/.cache/runs/bench-validation-humanize-coverage-warm
    .venv/bin/python bench/bench_verify.py RUN --n 30 --reps 3

The "before" copy of each bundle differs only in ``tests/test.sh`` (``--tb=native`` taken
out) and, so that its hash still verifies, in ``task.toml``'s ``task_hash``. Every
verification must pass (nop 0, oracle 1) in both copies. Prints the wall seconds of each
``gen09 verify --json`` and writes ``bench/results/verify.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

from common import CACHE, RESULTS, cpu_model

from gen09_core.mutate.bundle import check_task_hash, task_hash

NATIVE = " --tb=native"


def make_copies(run: Path, n: int, folder: Path) -> dict[str, Path]:
    """``{"after": folder of n bundles as written, "before": the same without --tb=native}``."""
    bundles = sorted(p for p in (run / "tasks").iterdir() if (p / "task.toml").is_file())[:n]
    if len(bundles) < n:
        raise SystemExit(f"{run} has {len(bundles)} bundles, fewer than --n {n}")
    copies = {"after": folder / "after" / "tasks", "before": folder / "before" / "tasks"}
    shutil.rmtree(folder, ignore_errors=True)
    for bundle in bundles:
        for tasks in copies.values():
            shutil.copytree(bundle, tasks / bundle.name, symlinks=True)
        before = copies["before"] / bundle.name
        test_sh = before / "tests" / "test.sh"
        if NATIVE not in test_sh.read_text(encoding="utf-8"):
            raise SystemExit(f"{bundle}: its test.sh has no {NATIVE.strip()} (written by an older gen09)")
        test_sh.write_text(test_sh.read_text(encoding="utf-8").replace(NATIVE, ""), encoding="utf-8")
        toml = (before / "task.toml").read_text(encoding="utf-8")
        blank = re.sub(r'^task_hash = "sha256:[0-9a-f]+"$', 'task_hash = ""', toml, count=1, flags=re.M)
        rehashed = blank.replace('task_hash = ""', f'task_hash = "{task_hash(before, blank)}"', 1)
        (before / "task.toml").write_text(rehashed, encoding="utf-8")
        assert check_task_hash(before)
    return {name: tasks.parent for name, tasks in copies.items()}


def verify(folder: Path) -> tuple[float, dict]:
    """Wall seconds and the JSON report of ``gen09 verify folder --json``."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gen09_core", "verify", str(folder), "--json"],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"gen09 verify {folder} failed ({done.returncode}): {done.stderr[-600:]}")
    return seconds, json.loads(done.stdout)


def main() -> None:
    """Verify both copies ``--reps`` times, alternating which goes first."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a gen09 mutate output folder with >= N bundles")
    parser.add_argument("--n", type=int, default=30, help="bundles to verify (default 30)")
    parser.add_argument("--reps", type=int, default=2, help="verifications of each copy (default 2)")
    args = parser.parse_args()
    copies = make_copies(args.run.resolve(), args.n, CACHE / "verify-bench")
    seconds = {"before": [], "after": []}
    load = [os.getloadavg()[0]]
    for rep in range(args.reps):
        for name in (("before", "after") if rep % 2 == 0 else ("after", "before")):
            wall, report = verify(copies[name])
            if report["ok"] != report["total"] or report["total"] != args.n:
                raise SystemExit(f"{name}: {report['ok']} of {report['total']} bundles verified")
            seconds[name].append(round(wall, 2))
            print(f"{name}: {wall:.1f} s for {args.n} bundles ({report['ok']} verified)", flush=True)
    load.append(os.getloadavg()[0])
    before, after = statistics.median(seconds["before"]), statistics.median(seconds["after"])
    print("\n| bundles | before (long tracebacks), s | after (--tb=native), s | before / after |\n"
          f"|---:|---:|---:|---:|\n| {args.n} | {before:.1f} | {after:.1f} | {before / after:.2f}x |")
    print(f"load average {load[0]:.1f} at the start, {load[1]:.1f} at the end; {cpu_model()}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "verify.json").write_text(json.dumps(
        {"date": date.today().isoformat(), "cpu": cpu_model(), "nproc": os.cpu_count(), "run": str(args.run),
         "n": args.n, "seconds": seconds, "load": load}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
