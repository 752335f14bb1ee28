"""`gen09 mutate` then `gen09 verify` (no Docker, the local toolchain) on one pinned real
repository per ecosystem beyond Python, with no gen09 configuration but the files to mutate.

Run from the repository root::

    .venv/bin/python bench/bench_real_repos_langs.py               # every repository
    .venv/bin/python bench/bench_real_repos_langs.py --only minimist --n 40

Sources, fetched once into ``bench/.cache`` (only from registries this machine reaches):

- JavaScript: ``minimist`` 1.2.8, the npm tarball (``npm pack``; it ships its 15 tape test
  files), its dev dependencies from the npm registry (``qs`` was tried first: one of its dev
  dependencies comes from a git URL, which this machine cannot reach);
- Rust: ``strsim`` 0.10.0, the crate source in Debian's ``librust-strsim-dev`` package
  (``apt-get download``; the crate has no dependencies, so cargo runs offline);
- Go: ``go-cmp`` 0.5.9, the module source in Debian's ``golang-github-google-go-cmp-dev``
  (no requirements, so go runs offline);
- C: cJSON v1.7.18 (``git clone`` of github.com/DaveGamble/cJSON, or the local mirror
  ``$GEN09_BENCH_CJSON_GIT``), CMake + ctest with its vendored Unity tests;
- Ruby: slop v4.10.1 (``git clone`` of github.com/leejarvis/slop, or the local mirror
  ``$GEN09_BENCH_SLOP_GIT``), minitest with no dependency; its Gemfile's gemspec pins
  ``minitest ~> 5.0.0``, which is not installed, so it runs with the installed gems.
- Java (``maven``): JFreeSVG v5.0.6 (``git clone`` of github.com/jfree/jfreesvg, or the local
  mirror ``$GEN09_BENCH_MAVEN_GIT``), Maven + surefire 3.2.5, JUnit 5.10.2, no other dependency:
  its pom's plugins for ``mvn test`` are all in the pre-populated ``~/.m2`` of gen09's build
  machine, so ``mvn -o`` runs it unchanged (java-diff-utils, jsoup, commonmark-java and later
  JFreeSVG tags each miss an artifact there; see docs/languages.md).

For each: ``gen09 mutate SRC --n N --seed S --out RUN --json`` with ``include`` set to the
library's sources and ``limits.max_tasks``, then ``gen09 verify RUN --json``. Prints a markdown
table (ecosystem, detected recipe, stable tests, tasks / mutants, wall times, verify pass
rate) and writes ``bench/results/real_repos_langs.json``. Target per ecosystem: ≥ 5 verified
tasks from ≤ 60 mutants, every bundle nop 0 / oracle 1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from datetime import date
from pathlib import Path

from bench_real_repos import gen09
from common import CACHE, RESULTS, cpu_model

GIT = {  # name: (the variable naming a local mirror, the public repository)
    "cjson": ("GEN09_BENCH_CJSON_GIT", "https://github.com/DaveGamble/cJSON"),
    "slop": ("GEN09_BENCH_SLOP_GIT", "https://github.com/leejarvis/slop"),
    "maven": ("GEN09_BENCH_MAVEN_GIT", "https://github.com/jfree/jfreesvg"),
}
REPOS = {  # name: (ecosystem, pinned release, files to mutate)
    "minimist": ("javascript (npm, tape)", "1.2.8", ("index.js",)),
    "strsim": ("rust (cargo)", "0.10.0", ("src/*.rs",)),
    "go-cmp": ("go", "0.5.9", ("cmp/*.go",)),
    "cjson": ("c (cmake + ctest)", "v1.7.18", ("cJSON.c", "cJSON_Utils.c")),
    "slop": ("ruby (minitest)", "v4.10.1", ("lib/slop.rb", "lib/slop/*.rb")),
    "maven": ("java (maven + surefire)", "v5.0.6",
              tuple(f"src/main/java/org/jfree/svg/{f}.java" for f in ("SVGGraphics2D", "util/RyuDouble",
                                                                       "util/Args"))),
}


def _run(cmd, cwd=None) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed: {done.stderr.strip()[-400:]}")


def fetch(name: str, version: str) -> Path:
    """The pristine source tree of ``name`` at ``version`` (cached)."""
    target = CACHE / "langs" / f"{name}-{version}"
    if target.is_dir():
        return target
    work = CACHE / "langs" / "download"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    if name == "minimist":
        _run(["npm", "pack", f"minimist@{version}"], cwd=work)
        with tarfile.open(work / f"minimist-{version}.tgz") as tar:
            tar.extractall(work, filter="data")
        shutil.move(work / "package", target)
    elif name == "strsim":
        _run(["apt-get", "download", "librust-strsim-dev"], cwd=work)
        deb = next(work.glob("librust-strsim-dev_*.deb"))
        _run(["dpkg-deb", "-x", deb, work / "x"])
        shutil.move(next((work / "x" / "usr/share/cargo/registry").glob(f"strsim-{version}*")), target)
        (target / ".cargo-checksum.json").unlink(missing_ok=True)
    elif name == "go-cmp":
        _run(["apt-get", "download", "golang-github-google-go-cmp-dev"], cwd=work)
        _run(["dpkg-deb", "-x", next(work.glob("golang-github-google-go-cmp-dev_*.deb")), work / "x"])
        shutil.move(work / "x" / "usr/share/gocode/src/github.com/google/go-cmp", target)
    else:  # a git tag of a public repository, or of its local mirror
        variable, url = GIT[name]
        _run(["git", "clone", "--quiet", "--bare", os.environ.get(variable) or url, work / "src.git"])
        target.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", work / "src.git", "archive", version], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "x", "-C", target], input=archive, check=True)
    shutil.rmtree(work, ignore_errors=True)
    return target


def one(name: str, n: int, tasks: int, seed: int, workers: int) -> dict:
    ecosystem, version, include = REPOS[name]
    src = fetch(name, version)
    out = CACHE / "runs" / f"langs-{name}"
    shutil.rmtree(out, ignore_errors=True)
    config = CACHE / "runs" / f"langs-{name}.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"limits": {"max_tasks": tasks},
                                  "recipe": {"swe_smith": {"include": list(include)}}}))
    print(f"== {name} {version}", file=sys.stderr)
    wall, done = gen09("mutate", src, "--config", config, "--n", n, "--seed", seed, "--workers", workers,
                       "--out", out, "--json")
    row = {"repository": f"{name} {version}", "ecosystem": ecosystem, "mutate_exit": done.returncode,
           "mutate_wall_s": round(wall, 1)}
    if done.returncode not in (0, 1) or not done.stdout.strip():
        row["error"] = done.stderr.strip().splitlines()[-1][:400] if done.stderr.strip() else "no output"
        return row
    summary = json.loads(done.stdout)
    row.update(detected=summary["environment"]["detected"], toolchain=summary["environment"]["toolchain"],
               stable=summary["baseline"]["stable"], mutants=summary["mutants"], tasks=summary["exported"],
               outcomes={k: v for k, v in summary["outcomes"].items() if v}, timeout_s=summary["timeout_sec"])
    if summary["exported"]:
        vwall, verified = gen09("verify", out, "--json")
        empty = {"ok": 0, "total": 0, "bundles": []}
        report = json.loads(verified.stdout) if verified.stdout.strip() else empty
        row.update(verify_ok=report["ok"], verify_total=report["total"], verify_wall_s=round(vwall, 1),
                   nop_zero=sum(b["nop"] == 0 for b in report["bundles"]),
                   oracle_one=sum(b["oracle"] == 1 for b in report["bundles"]),
                   verify_failures=[b["detail"][:300] for b in report["bundles"] if not b["ok"]][:3])
        if verified.returncode not in (0, 1):
            row["verify_error"] = verified.stderr.strip()[-400:]
    return row


def table(rows: list[dict]) -> str:
    lines = ["| repository | ecosystem | detected | stable tests | tasks / mutants | mutate wall (s) | "
             "verify ok / bundles | nop 0 | oracle 1 | verify wall (s) |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['repository']} | {r['ecosystem']} | error: {r['error']} | | | "
                         f"{r['mutate_wall_s']} | | | | |")
            continue
        lines.append(f"| {r['repository']} | {r['ecosystem']} | {r['detected']} | {r['stable']} | "
                     f"{r['tasks']} / {r['mutants']} | {r['mutate_wall_s']} | {r.get('verify_ok', 0)} / "
                     f"{r.get('verify_total', 0)} | {r.get('nop_zero', 0)} | {r.get('oracle_one', 0)} | "
                     f"{r.get('verify_wall_s', '')} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30, help="mutants per repository (limits.max_mutants)")
    parser.add_argument("--tasks", type=int, default=8, help="tasks per repository (limits.max_tasks)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated names: " + ", ".join(REPOS))
    args = parser.parse_args()
    wanted = [w.strip() for w in args.only.split(",") if w.strip()] or list(REPOS)
    start = time.perf_counter()
    rows = [one(name, args.n, args.tasks, args.seed, args.workers) for name in wanted]
    report = {"date": date.today().isoformat(), "cpu": cpu_model(), "nproc": os.cpu_count(), "n": args.n,
              "max_tasks": args.tasks, "seed": args.seed, "workers": args.workers, "repositories": rows,
              "wall_s": round(time.perf_counter() - start, 1)}
    RESULTS.mkdir(exist_ok=True)
    name = "real_repos_langs.json" if not args.only else f"real_repos_langs-{'-'.join(wanted)}.json"
    (RESULTS / name).write_text(json.dumps(report, indent=2) + "\n")
    print(table(rows))
    print(f"\n{report['date']}, {report['cpu']}, {report['nproc']} CPUs, --n {args.n}, "
          f"max_tasks {args.tasks}, seed {args.seed}, {args.workers} workers; total {report['wall_s']} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
