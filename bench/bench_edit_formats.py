"""Benchmark the edit formats and the MCP agent loop, on real code, in one run.

Run from the repository root::

    .venv/bin/python bench/bench_edit_formats.py            # full run (a few minutes)
    .venv/bin/python bench/bench_edit_formats.py --quick    # fewer commits and calls

What it does:

1. **Parse + apply per format on real commits.** Every text file that a commit of this
   repository's own history modified, added, deleted or renamed becomes a candidate: applied
   once as a whole-file change, emitted in each format (``gen09_core.formats.emit``; the
   editor commands are the search/replace edits as ``str_replace``), then parsed
   (``candidates.parse``) and applied (stage (d), no gate) again, timed; the bytes must equal
   the commit's. Reported per format: median and p90 microseconds, and the payload size.
2. **The agent loop.** A ~1,600-line real file (the running interpreter's ``threading.py``)
   in a scratch repository; batches of 10 single-line candidates (operator and constant
   rewrites, ``gen09_core.ab.templates``; every batch different, so no result is reused
   across calls). Timed in the same run: ``apply_candidates`` calls to a warm ``gen09 mcp``
   subprocess through the official SDK client over stdio (each call's round trip), and cold
   ``gen09 apply BATCH --json`` processes of the same batches. The MCP report must equal the
   CLI's.
3. Prints markdown tables and writes JSON to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, add_wait_idle, save_results, wait_idle  # noqa: E402

FORMATS = ("search_replace", "udiff", "apply_patch", "editor", "whole_file")
TARGET_MS, TARGET_RATIO = 25.0, 4.0


def commit_changes(limit: int) -> list[tuple[str, str, str, str]]:
    """``(status, commit, old path, new path)`` of text files changed by the newest commits."""
    log = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%H", "--no-merges", "-n", str(limit)],
                         capture_output=True, text=True, check=True).stdout.split()
    out = []
    for commit in log:
        rows = subprocess.run(["git", "-C", str(ROOT), "diff-tree", "-r", "-M", "--root", "--no-commit-id",
                               "--name-status", commit], capture_output=True, text=True, check=True).stdout
        for row in rows.splitlines():
            parts = row.split("\t")
            if parts[0][0] in "MAD":
                out.append((parts[0][0], commit, parts[1], parts[1]))
            elif parts[0][0] == "R":
                out.append(("R", commit, parts[1], parts[2]))
    return out


def blob(commit: str, path: str) -> bytes:
    return subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True,
                          check=True).stdout


def records(applied, status: str) -> dict:
    """The candidate in every format (None where a format cannot express it)."""
    from gen09_core.formats import NotRepresentable
    from gen09_core.formats.emit import emit

    out = {}
    for fmt in ("search_replace", "udiff", "apply_patch"):
        try:
            out[fmt] = emit(applied, fmt)
        except NotRepresentable:
            out[fmt] = None
    edits = out["search_replace"]["edits"]
    out["editor"] = None
    if status == "M" and all("search" in e for e in edits):
        out["editor"] = {"id": "c", "commands": [{"command": "str_replace", "path": e["file"],
                                                  "old_str": e["search"], "new_str": e["replace"]}
                                                 for e in edits]}
    whole = []
    for f in applied.files:
        if f.deleted and not any(g.moved_from == f.path for g in applied.files):
            whole.append({"file": f.path, "delete": True})
        elif not f.deleted:
            whole.append({"file": f.path, "content": f.new_text})
    out["whole_file"] = {"id": "c", "edits": whole} if status in "MA" else None
    return out


def parse_apply_per_format(limit: int, repeat: int) -> dict:
    from gen09_core.apply import apply_candidate
    from gen09_core.candidates import parse
    from gen09_core.models import Applied, Candidate, Edit
    from gen09_core.plugins import make_registry
    from gen09_core.repo import Snapshot

    registry = make_registry()
    times = {f: [] for f in FORMATS}
    sizes = {f: [] for f in FORMATS}
    checked = skipped = 0
    for status, commit, old_path, new_path in commit_changes(limit):
        new = b"" if status == "D" else blob(commit, new_path)
        old = b"" if status == "A" else blob(commit + "^", old_path)
        if b"\0" in old + new or (status == "M" and old == new) or len(old + new) > 400_000:
            continue
        try:
            new_text = new.decode("utf-8")
            old.decode("utf-8")
        except UnicodeDecodeError:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            if status != "A":
                (root / old_path).parent.mkdir(parents=True, exist_ok=True)
                (root / old_path).write_bytes(old)
            edits = {"A": (Edit(new_path, content=new_text),), "D": (Edit(old_path, delete=True),),
                     "M": (Edit(old_path, content=new_text),),
                     "R": (Edit(old_path, content=new_text), Edit(old_path, move_to=new_path))}[status]
            snapshot = Snapshot(root)
            first = apply_candidate(registry, snapshot, Candidate("c", edits), None)
            if not isinstance(first, Applied):
                continue
            expected = {f.path: None if f.deleted else f.new_bytes() for f in first.files}
            for fmt, record in records(first, status).items():
                if record is None:
                    skipped += 1
                    continue
                data = {"version": 1, "candidates": [record]}
                if fmt != "whole_file":
                    data["format"] = fmt
                best = None
                for _ in range(repeat):
                    start = time.perf_counter()
                    batch = parse(data)
                    again = apply_candidate(registry, snapshot, batch.candidates[0], None)
                    took = time.perf_counter() - start
                    best = took if best is None else min(best, took)
                got = {f.path: None if f.deleted else f.new_bytes() for f in again.files}
                if got != expected:
                    raise SystemExit(f"{fmt} did not reproduce {commit[:10]} {old_path}")
                checked += 1
                times[fmt].append(best * 1e6)
                sizes[fmt].append(len(json.dumps(record)))
    rows = {}
    for fmt in FORMATS:
        values = sorted(times[fmt])
        if values:
            rows[fmt] = {"files": len(values), "median_us": statistics.median(values),
                         "p90_us": values[int(0.9 * (len(values) - 1))],
                         "median_payload_bytes": statistics.median(sizes[fmt])}
    return {"commits_scanned": limit, "round_trips_checked": checked, "not_expressible": skipped,
            "per_format": rows}


def loop_batches(text: str, path: str, count: int) -> list[dict]:
    """``count`` batches of 10 distinct single-line rewrites (no rewrite used twice)."""
    from gen09_core.ab.templates import variants

    pairs = variants(text)
    if len(pairs) < 10 * count:
        raise SystemExit(f"only {len(pairs)} rewrites of {path}, {10 * count} needed")
    step = len(pairs) // (10 * count)
    chosen = pairs[::step][:10 * count]
    def batch(pairs):
        return {"version": 1, "candidates": [
            {"id": f"c{k + 1}", "edits": [{"file": path, "search": s, "replace": r}]}
            for k, (s, r) in enumerate(pairs)]}
    return [batch(chosen[10 * b:10 * b + 10]) for b in range(count)]


def agent_loop(calls: int, cold_runs: int) -> dict:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    source = Path(threading.__file__)
    text = source.read_text(encoding="utf-8")
    gen09 = str(Path(sys.executable).with_name("gen09"))
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / "lib").mkdir(parents=True)
        shutil.copy(source, repo / "lib" / "threading.py")
        batches = loop_batches(text, "lib/threading.py", calls + 3)
        files = []
        for k, batch in enumerate(batches):
            files.append(Path(tmp) / f"batch{k}.json")
            files[-1].write_text(json.dumps(batch))

        warm, reports = [], []

        async def run_warm():
            params = StdioServerParameters(command=gen09, args=["mcp", "--repo", str(repo)])
            async with Client(params) as client:
                for k, batch in enumerate(batches):
                    start = time.perf_counter()
                    result = await client.call_tool("apply_candidates", batch)
                    took = time.perf_counter() - start
                    if result.is_error:
                        raise SystemExit(result.content[0].text)
                    if k >= 3:  # the first calls warm the caches of the unchanged original
                        warm.append(took * 1000)
                        reports.append(result.structured_content)

        anyio.run(run_warm)
        cold, same = [], 0
        for k in range(cold_runs):
            index = 3 + k % calls
            start = time.perf_counter()
            done = subprocess.run([gen09, "apply", str(files[index]), "--repo", str(repo), "--json"],
                                  capture_output=True, text=True)
            cold.append((time.perf_counter() - start) * 1000)
            if done.returncode not in (0, 1):
                raise SystemExit(done.stderr)
            same += json.loads(done.stdout) == reports[index - 3]
    summary = reports[0]["summary"]
    median_warm, median_cold = statistics.median(warm), statistics.median(cold)
    return {"file": f"{source} ({len(text.splitlines())} lines, Python {platform.python_version()})",
            "candidates_per_call": 10, "warm_calls": len(warm), "cold_runs": len(cold),
            "warm_ms": {"median": median_warm, "min": min(warm), "max": max(warm)},
            "cold_ms": {"median": median_cold, "min": min(cold), "max": max(cold)},
            "speedup": median_cold / median_warm, "reports_equal": f"{same}/{len(cold)}",
            "first_batch_summary": summary,
            "target": {"warm_ms": TARGET_MS, "ratio": TARGET_RATIO,
                       "met": median_warm <= TARGET_MS and median_cold / median_warm >= TARGET_RATIO}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    add_wait_idle(parser)
    args = parser.parse_args()
    wait_idle(args.wait_idle)
    load = os.getloadavg()[0]
    formats = parse_apply_per_format(40 if args.quick else 150, 3 if args.quick else 5)
    loop = agent_loop(8 if args.quick else 20, 5 if args.quick else 10)
    results = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "load_1min_at_start": load, "load_1min_at_end": os.getloadavg()[0]},
               "date": time.strftime("%Y-%m-%d", time.gmtime()), "formats": formats, "agent_loop": loop}
    print(f"\n## Parse + apply per format ({formats['round_trips_checked']} byte-checked round trips of real "
          f"file changes from the newest {formats['commits_scanned']} commits; {formats['not_expressible']} "
          "not expressible in a format)\n")
    print("| format | files | median (µs) | p90 (µs) | median payload (bytes) |")
    print("|---|---:|---:|---:|---:|")
    for fmt, row in formats["per_format"].items():
        print(f"| {fmt} | {row['files']} | {row['median_us']:.0f} | {row['p90_us']:.0f} | "
              f"{row['median_payload_bytes']:.0f} |")
    print(f"\n## Agent loop: 10 candidates on {loop['file']}\n")
    print("| path | runs | median (ms) | min–max (ms) |")
    print("|---|---:|---:|---:|")
    paths = (("warm_ms", "warm `gen09 mcp` apply_candidates call"), ("cold_ms", "cold `gen09 apply --json`"))
    for key, label in paths:
        row = loop[key]
        runs = loop["warm_calls"] if key == "warm_ms" else loop["cold_runs"]
        print(f"| {label} | {runs} | {row['median']:.1f} | {row['min']:.1f}–{row['max']:.1f} |")
    print(f"\nspeed-up {loop['speedup']:.1f}x; reports equal {loop['reports_equal']}; target "
          f"(≤ {TARGET_MS:g} ms, ≥ {TARGET_RATIO:g}x): {'met' if loop['target']['met'] else 'NOT met'}; "
          f"load {load:.1f} → {results['machine']['load_1min_at_end']:.1f} on {os.cpu_count()} CPUs")
    save_results(results, "edit_formats")


if __name__ == "__main__":
    main()
