"""Procedural mutants on one real pinned package per tree-sitter language: mutants per
modifier, the fraction the gate drops, and mutants per second.

Run from the repository root::

    .venv/bin/python bench/bench_treesitter_mutate.py              # every language
    .venv/bin/python bench/bench_treesitter_mutate.py --only go,rust

1. Fetches (once, into ``bench/.cache/packages``) the pinned packages of ``packages.py``:
   ``npm pack`` for JavaScript/TypeScript/TSX, Debian source packages (or Debian packages
   that ship sources) for Go, Rust, Java, C, C++ and Ruby.
2. Runs gen09's generate stage (``gen09_core.mutate.mutants.generate``: entities x
   mutators, each mutant through ``run_batch``'s apply + syntax gate + dedup) over the
   package's files of that language with seed 0, the ``swe_smith`` recipe's default
   exclude globs and no cap: every eligible entity x modifier pair is mutated once.
3. Prints per language the files, how many the ecosystem's test/vendored conventions
   leave out, eligible pairs, mutants made, the fraction the gate drops, duplicates, gated
   mutants and gated mutants per second of the whole stage (gate included; also per CPU
   second, as the machine may be shared); then gated mutants per modifier and language.
   Writes JSON to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from common import RESULTS, cpu_model
from packages import PACKAGES, fetch, files

from gen09_core.mutate.mutants import generate
from gen09_core.mutate.recipes.swe_smith import SweSmithOptions
from gen09_core.plugins import make_registry
from gen09_treesitter import conventions

SEED = 0
# (language, package, folder inside the unpacked package)
SUBJECTS = (
    ("javascript", "lodash", "package"),
    ("typescript", "rxjs", "package/src"),
    ("tsx", "react-query", "package/src"),
    ("go", "cobra", "cobra-1.6.1"),
    ("rust", "semver", "usr/share/cargo/registry/semver-1.0.14"),
    ("java", "commons-lang3", "commons-lang-rel-commons-lang-3.12.0"),
    ("c", "lua", "lua-5.4.4"),
    ("cpp", "yaml-cpp", "yaml-cpp-yaml-cpp-0.7.0"),
    ("ruby", "rack", "usr/share/rubygems-integration/all/gems/rack-2.2.22"),
)


def measure(registry, language: str, package: str, folder: str) -> dict:
    """One language's row: counts, gate drops, speed and gated mutants per modifier."""
    root = fetch(package) / folder
    paths = [f for f in files(root) if registry.language_of(f) == language]
    start, cpu = time.perf_counter(), time.process_time()
    result = generate(registry, root, paths, exclude=SweSmithOptions().exclude, seed=SEED, cap=10 ** 9)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    per_modifier = result.stats.get(language, {})
    total = {k: sum(c.get(k, 0) for c in per_modifier.values()) for k in ("generated", "duplicate", "gated")}
    dropped = sum(v for c in per_modifier.values() for k, v in c.items() if k.startswith("gate_"))
    return {
        "language": language, "package": PACKAGES[package].label, "files": len(paths),
        "convention_excluded": sum(conventions.excluded(language, p, (root / p).read_text(errors="replace"))
                                   for p in paths),
        "pairs": result.candidates, **total, "gate_dropped": dropped,
        "gate_drop_fraction": round(dropped / total["generated"], 4) if total["generated"] else None,
        "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
        "mutants_per_second": round(total["gated"] / seconds, 1),
        "mutants_per_cpu_second": round(total["gated"] / cpu, 1),
        "gated_per_modifier": {name: c["gated"] for name, c in sorted(per_modifier.items())},
        "gate_reasons": {k: v for c in per_modifier.values() for k, v in c.items() if k.startswith("gate_")},
    }


def main() -> None:
    """Fetch, measure, print the tables and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated languages to run")
    args = parser.parse_args()
    only = set(args.only.split(",")) if args.only else None
    registry = make_registry(allow="treesitter")
    rows = []
    for language, package, folder in SUBJECTS:
        if only and language not in only:
            continue
        rows.append(measure(registry, language, package, folder))
        row = rows[-1]
        print(f"  {language:10} {row['gated']:6} gated in {row['seconds']:.1f} s", file=sys.stderr)
    print("| language | package | files (left out by convention) | eligible pairs | mutants | gate drops "
          "| duplicates | gated | gated/s (per CPU s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        drop = 100 * (r["gate_drop_fraction"] or 0)
        print(f"| {r['language']} | {r['package']} | {r['files']} ({r['convention_excluded']}) | "
              f"{r['pairs']} | {r['generated']} | {r['gate_dropped']} ({drop:.2f} %) | {r['duplicate']} | "
              f"{r['gated']} | {r['mutants_per_second']} ({r['mutants_per_cpu_second']}) |")
    names = sorted({n for r in rows for n in r["gated_per_modifier"]})
    print("\ngated mutants per modifier\n")
    print("| modifier | " + " | ".join(r["language"] for r in rows) + " |")
    print("|---|" + "---:|" * len(rows))
    for name in names:
        cells = [str(r["gated_per_modifier"][name]) if name in r["gated_per_modifier"] else "" for r in rows]
        print(f"| {name} | " + " | ".join(cells) + " |")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "treesitter_mutate.json"
    out.write_text(json.dumps({"cpu": cpu_model(), "python": sys.version.split()[0], "seed": SEED,
                               "rows": rows}, indent=2))
    print(f"\nwritten: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
