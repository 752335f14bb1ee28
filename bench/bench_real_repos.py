"""`gen09 mutate` with no configuration, then `gen09 verify` with its defaults, on popular
pure-Python libraries from pinned sdists (each ships its tests).

Run from the repository root::

    .venv/bin/python bench/bench_real_repos.py                  # every library, 12 mutants each
    .venv/bin/python bench/bench_real_repos.py --only attrs,toolz --n 20

For each library: fetch the sdist with ``pip download`` (once, into ``bench/.cache``), run the
real ``gen09 mutate SRC --n N --seed S --out RUN --json`` in a subprocess (no config file),
then ``gen09 verify RUN --json`` (each bundle in a venv rebuilt from its own lock). Prints a
markdown table — detected environment, stable tests, mutants, tasks, wall times, verify pass
rate — and writes JSON to ``bench/results/real_repos.json`` (each finished library's row is
also appended to ``bench/results/real_repos_rows.jsonl`` as it finishes). Targets: at least 9 of 10
libraries yield tasks; every exported bundle verifies nop 0 / oracle 1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from datetime import date

from common import CACHE, RESULTS, ROOT, cpu_model, fetch_sdist

LIBRARIES = (  # (sdist name, version): chosen for a spread of layouts and test setups
    ("attrs", "25.3.0"),            # src/, hatch-vcs version, tests extra (hypothesis, mypy plugins)
    ("boltons", "25.0.0"),          # flat, requirements-test.txt pins, tox deps
    ("cachetools", "5.5.2"),        # src/ via setup.cfg package_dir, unittest-style tests
    ("click", "8.2.1"),             # src/, PEP 735 dependency group "tests"
    ("glom", "24.11.0"),            # tests inside the package, tox deps with pins
    ("humanize", "4.12.3"),         # src/, hatch-vcs, tests extra with freezegun and pytest-cov
    ("more-itertools", "10.7.0"),   # unittest subTest-heavy suite, flit
    ("packaging", "25.0"),          # src/, flit, tests needing pretend (undeclared in metadata)
    ("pluggy", "1.6.0"),            # src/, setuptools-scm, "testing" extra, tests in testing/
    ("pyparsing", "3.2.3"),         # flit, tox extras and deps
    ("python-dateutil", "2.9.0.post0"),  # src/, setuptools-scm, requirements-dev fallback
    ("toolz", "1.0.0"),             # setup.py + versioneer, tests inside the package
)


def gen09(*args, timeout=7200) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "gen09_core", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=timeout)
    return time.perf_counter() - start, done


def one(name: str, version: str, n: int, seed: int, workers: int) -> dict:
    src = fetch_sdist(name, version)
    out = CACHE / "runs" / f"real-{name}"
    shutil.rmtree(out, ignore_errors=True)
    print(f"== {name} {version}", file=sys.stderr)
    wall, done = gen09("mutate", src, "--max-mutants", n, "--seed", seed, "--workers", workers,
                       "--out", out, "--json")
    row = {"library": f"{name}=={version}", "mutate_exit": done.returncode, "mutate_wall_s": round(wall, 1)}
    if done.returncode not in (0, 1) or not done.stdout.strip():
        row["error"] = done.stderr.strip().splitlines()[-1][:400] if done.stderr.strip() else "no output"
        return row
    summary = json.loads(done.stdout)
    detected = json.loads((out / "config.json").read_text())["detected"]
    row.update(detected="; ".join(what for what, _ in detected["provenance"]),
               stable=summary["baseline"]["stable"], mutants=summary["mutants"], tasks=summary["exported"],
               outcomes={k: v for k, v in summary["outcomes"].items() if v},
               timeout_s=summary["timeout_sec"], packages=summary["environment"]["packages"])
    if summary["exported"]:
        vwall, verified = gen09("verify", out, "--json")
        empty = {"ok": 0, "total": 0, "bundles": []}
        report = json.loads(verified.stdout) if verified.stdout.strip() else empty
        row.update(verify_ok=report["ok"], verify_total=report["total"], verify_wall_s=round(vwall, 1),
                   verify_failures=[b["detail"][:300] for b in report["bundles"] if not b["ok"]][:3])
        if verified.returncode not in (0, 1):
            row["verify_error"] = verified.stderr.strip()[-400:]
    return row


def table(rows: list[dict]) -> str:
    lines = ["| library | detected environment | stable tests | mutants | tasks | mutate wall (s) | verify "
             "ok / bundles | verify wall (s) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['library']} | error: {r['error']} | | | 0 | {r['mutate_wall_s']} | | |")
            continue
        verify = f"{r.get('verify_ok', 0)} / {r.get('verify_total', 0)}"
        lines.append(f"| {r['library']} | {r['detected']} | {r['stable']} | {r['mutants']} | {r['tasks']} | "
                     f"{r['mutate_wall_s']} | {verify} | {r.get('verify_wall_s', '')} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12, help="mutants per library (limits.max_mutants)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated sdist names")
    parser.add_argument("--tag", default="", help="suffix of the result files (for runs side by side)")
    args = parser.parse_args()
    wanted = {w.strip() for w in args.only.split(",") if w.strip()}
    chosen = [(n, v) for n, v in LIBRARIES if not wanted or n in wanted]
    start = time.perf_counter()
    RESULTS.mkdir(exist_ok=True)
    progress = RESULTS / f"real_repos_rows{args.tag}.jsonl"  # a row per finished library
    progress.write_text("")
    rows = []
    for name, version in chosen:
        rows.append(one(name, version, args.n, args.seed, args.workers))
        with progress.open("a") as f:
            f.write(json.dumps(rows[-1]) + "\n")
    yielding = sum(1 for r in rows if r.get("tasks"))
    bundles = sum(r.get("verify_total", 0) for r in rows)
    verified = sum(r.get("verify_ok", 0) for r in rows)
    report = {"date": date.today().isoformat(), "cpu": cpu_model(), "nproc": os.cpu_count(),
              "python": sys.version.split()[0], "n": args.n, "seed": args.seed, "workers": args.workers,
              "libraries": rows, "yielding": yielding, "of": len(rows), "bundles": bundles,
              "bundles_verified": verified, "wall_s": round(time.perf_counter() - start, 1)}
    (RESULTS / f"real_repos{args.tag}.json").write_text(json.dumps(report, indent=2) + "\n")
    print(table(rows))
    print(f"\n{yielding} of {len(rows)} libraries yielded tasks with no configuration; "
          f"{verified} of {bundles} exported bundles verified nop 0 / oracle 1 in their shipped environment. "
          f"{report['date']}, {report['cpu']}, {report['nproc']} CPUs, Python {report['python']}, "
          f"total {report['wall_s']} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
