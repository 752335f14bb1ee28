"""Benchmark the cost of the crash-safe ``--write`` (lock + journal + fsync + renameat2) on a
10-file candidate of real code, against the plain write it replaced, in the same run.

Run from the repository root::

    .venv/bin/python bench/bench_write_journal.py            # 40 repetitions, 15 cold runs
    .venv/bin/python bench/bench_write_journal.py --quick    # 10 and 5

What it does:

1. Fetches the pinned boltons sdist with ``pip download`` (``bench/.cache``) and copies it
   to a temporary git repository.
2. Builds one valid candidate editing one line in each of the 10 largest boltons modules.
3. Times writing that candidate's files, interleaved, each followed by an untimed restore:
   (a) ``gen09_core.write.write_files`` — the transaction; (b) **plain**: the write gen09
   had before (per file a temp file + ``os.replace``, no lock, no journal, no fsync);
   (c) **plain + fsync**: (b) with each temp file and its folder fsynced, i.e. the same
   durability without the journal. (a)/(b) is the whole price; (a)/(c) that of the journal.
4. Times whole cold processes: ``gen09 apply c.json --write m`` vs ``gen09 apply c.json``.
5. Prints a markdown table and writes JSON to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import add_wait_idle, fetch_sdist, machine, median_ms, save_results, spread_ms, wait_idle

from gen09_core.candidates import parse
from gen09_core.pipeline import run_batch
from gen09_core.plugins import default_registry
from gen09_core.write import write_files
from gen09_python.lint import ruff_binary

BOLTONS_VERSION = "25.0.0"
FILES = 10


def plain_write(root: Path, files, fsync: bool = False) -> None:
    """gen09's write before the journal: temp file + ``os.replace`` per file."""
    for changed in files:
        path = root / changed.path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".gen09")
        with os.fdopen(fd, "wb") as handle:
            handle.write(changed.new_bytes())
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o7777)
        os.replace(tmp, path)
        if fsync:
            dir_fd = os.open(path.parent, os.O_RDONLY)
            os.fsync(dir_fd)
            os.close(dir_fd)


def candidate(repo: Path) -> tuple[dict, list[str]]:
    """One edit in each of the ``FILES`` largest modules: a top-level line gets a comment."""
    modules = sorted((repo / "boltons").glob("*.py"), key=lambda p: -p.stat().st_size)[:FILES]
    edits, names = [], []
    for module in modules:
        lines = module.read_text(encoding="utf-8").split("\n")
        line = next(ln for ln in lines if ln.startswith(("import ", "from ", "def ", "class "))
                    and ln.rstrip() == ln and lines.count(ln) == 1)
        rel = module.relative_to(repo).as_posix()
        edits.append({"file": rel, "search": line + "\n", "replace": line + "  # edited\n"})
        names.append(rel)
    return {"version": 1, "candidates": [{"id": "m", "edits": edits}]}, names


def bench(reps: int, cold_runs: int) -> dict:
    sdist = fetch_sdist("boltons", BOLTONS_VERSION)
    work = Path(tempfile.mkdtemp(prefix="gen09-bench-write-"))
    try:
        repo = work / "boltons"
        shutil.copytree(sdist, repo)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        data, names = candidate(repo)
        outcome = run_batch(parse(data), repo, default_registry()).outcomes[0]
        assert outcome.status == "valid", outcome
        files = outcome.applied.files
        original = {c.path: (repo / c.path).read_bytes() for c in files}
        size = sum(len(b) for b in original.values())

        def restore():
            for rel, raw in original.items():
                (repo / rel).write_bytes(raw)

        ways = {"journaled (write_files)": lambda: write_files(repo, files),
                "plain (temp + os.replace)": lambda: plain_write(repo, files),
                "plain + fsync": lambda: plain_write(repo, files, fsync=True)}
        samples = {name: [] for name in ways}
        for rep in range(reps):
            order = list(ways.items())
            for name, way in order if rep % 2 else order[::-1]:
                start = time.perf_counter()
                way()
                samples[name].append(time.perf_counter() - start)
                assert all((repo / rel).read_bytes() == c.new_bytes() for rel, c in
                           ((c.path, c) for c in files))
                restore()
        journaled = median_ms(samples["journaled (write_files)"])
        rows = [{"way": name, "median_ms": median_ms(s), "min_max_ms": spread_ms(s),
                 "journaled_over_this": round(journaled / median_ms(s), 2)} for name, s in samples.items()]
        cand = work / "c.json"
        cand.write_text(json.dumps(data))
        cli = [sys.executable, "-m", "gen09_core", "apply", str(cand), "--repo", str(repo)]
        cold = {"gen09 apply c.json --write m": [], "gen09 apply c.json (no write)": []}
        for _ in range(cold_runs):
            for name, extra in (("gen09 apply c.json --write m", ["--write", "m"]),
                                ("gen09 apply c.json (no write)", [])):
                start = time.perf_counter()
                done = subprocess.run(cli + extra, capture_output=True, text=True)
                cold[name].append(time.perf_counter() - start)
                assert done.returncode == 0, done.stderr
                restore()
        cold_rows = [{"command": name, "median_ms": median_ms(s), "min_max_ms": spread_ms(s)}
                     for name, s in cold.items()]
        return {"files": names, "bytes": size, "reps": reps, "cold_runs": cold_runs,
                "write": rows, "cold": cold_rows}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def markdown(results: dict) -> str:
    out = [f"10-file candidate on boltons {BOLTONS_VERSION} ({results['bytes']} bytes in "
           f"{len(results['files'])} modules), {results['reps']} interleaved repetitions:", "",
           "| write | median (ms) | min–max (ms) | journaled / this |", "|---|---:|---:|---:|"]
    for r in results["write"]:
        out.append(f"| {r['way']} | {r['median_ms']} | {r['min_max_ms'][0]}–{r['min_max_ms'][1]} | "
                   f"{r['journaled_over_this']}× |")
    out += ["", f"Cold processes, {results['cold_runs']} runs each, interleaved:", "",
            "| command | median (ms) | min–max (ms) |", "|---|---:|---:|"]
    for r in results["cold"]:
        out.append(f"| `{r['command']}` | {r['median_ms']} | {r['min_max_ms'][0]}–{r['min_max_ms'][1]} |")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--cold-runs", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="10 repetitions, 5 cold runs")
    add_wait_idle(ap)
    args = ap.parse_args(argv)
    wait_idle(args.wait_idle)
    if args.quick:
        args.reps, args.cold_runs = 10, 5
    results = {"machine": machine(ruff_binary()), "boltons": BOLTONS_VERSION,
               "date": time.strftime("%Y-%m-%d", time.gmtime()), **bench(args.reps, args.cold_runs)}
    results["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(results["machine"]))
    print(markdown(results))
    save_results(results, "bench-write-journal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
