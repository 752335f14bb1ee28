"""How many gated mutants still compile, for the tree-sitter languages with a compiler on
this machine (C, C++, Rust, Java). A mutant that does not compile fails every test for the
wrong reason; the mutators avoid the common causes (see ``gen09_treesitter.mutators``).

Run from the repository root::

    .venv/bin/python bench/bench_treesitter_compile.py            # 40 mutants per language
    .venv/bin/python bench/bench_treesitter_compile.py --n 80 --only c,java

For each language: the pinned package of ``packages.py`` is copied to a scratch folder; the
generate stage makes gated mutants (seed 0, the first 400) of its compilable sources; a
seeded sample of ``--n`` is compiled one at a time with the package's own flags (``gcc``/
``g++ -fsyntax-only``, ``rustc --emit=metadata`` on the crate, ``javac`` against the source
path), each file's pristine version first. Prints the compile rate per language and the
modifiers of the mutants that failed; writes JSON to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from common import RESULTS, cpu_model
from packages import fetch, files

from gen09_core.mutate.mutants import generate
from gen09_core.plugins import make_registry

SEED = 0
CAP = 400
# language -> (package, folder, include globs, command for one file (``{file}``, ``{out}``))
SUBJECTS = {
    "c": ("lua", "lua-5.4.4", ("src/*.c",),
          ["gcc", "-fsyntax-only", "-std=gnu99", "-DLUA_COMPAT_5_3", "-DLUA_USE_LINUX", "-Isrc", "{file}"]),
    "cpp": ("yaml-cpp", "yaml-cpp-yaml-cpp-0.7.0", ("src/*.cpp",),
            ["g++", "-fsyntax-only", "-std=c++11", "-Iinclude", "-Isrc", "{file}"]),
    "rust": ("semver", "usr/share/cargo/registry/semver-1.0.14", ("src/*",),
             ["rustc", "--edition", "2018", "--crate-type", "lib", "--emit=metadata", "--cap-lints", "allow",
              "-o", "{out}/semver.rmeta", "src/lib.rs"]),
    "java": ("commons-lang3", "commons-lang-rel-commons-lang-3.12.0", ("src/main/java/*",),
             ["javac", "-d", "{out}", "-implicit:none", "-nowarn", "-proc:none", "-Xlint:none",
              "-sourcepath", "src/main/java", "{file}"]),
}


def compiles(command, work: Path, rel: str, out: Path) -> bool:
    """True when the command exits 0 for file ``rel`` of the folder ``work``."""
    args = [a.replace("{file}", rel).replace("{out}", str(out)) for a in command]
    return subprocess.run(args, cwd=work, capture_output=True, timeout=600).returncode == 0


def measure(registry, language: str, n: int, scratch: Path) -> dict:
    """Compile a sample of one language's mutants; the row with rate and failures."""
    package, folder, include, command = SUBJECTS[language]
    work, out = scratch / language, scratch / f"{language}-out"
    shutil.copytree(fetch(package) / folder, work)
    out.mkdir()
    paths = [f for f in files(work) if registry.language_of(f) == language]
    result = generate(registry, work, paths, include=include, seed=SEED, cap=CAP)
    sample = random.Random(SEED).sample(result.mutants, min(n, len(result.mutants)))
    pristine = {m.path: compiles(command, work, m.path, out) for m in sample}
    tried = [m for m in sample if pristine[m.path]]
    failed = []
    for mutant in tried:
        original = (work / mutant.path).read_bytes()
        (work / mutant.path).write_text(mutant.text, encoding="utf-8")
        try:
            if not compiles(command, work, mutant.path, out):
                failed.append(mutant)
        finally:
            (work / mutant.path).write_bytes(original)
    ok = len(tried) - len(failed)
    return {"language": language, "package": package, "sampled": len(sample), "compiled_pristine": len(tried),
            "compiled": ok, "rate": round(ok / len(tried), 3) if tried else None,
            "failed_by_modifier": dict(Counter(m.modifier for m in failed).most_common()),
            "failed": [{"id": m.mutant_id, "file": m.path, "diff": m.diff} for m in failed],
            "sampled_by_modifier": dict(Counter(m.modifier for m in tried).most_common())}


def main() -> None:
    """Measure every language (or ``--only``), print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=40, help="mutants compiled per language")
    parser.add_argument("--only", help="comma-separated languages (c, cpp, rust, java)")
    args = parser.parse_args()
    languages = args.only.split(",") if args.only else list(SUBJECTS)
    registry = make_registry(allow="treesitter")
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(registry, language, args.n, Path(tmp)) for language in languages]
    print("| language | package | mutants compiled | still compile | failures by modifier |")
    print("|---|---|---:|---:|---|")
    for r in rows:
        failures = ", ".join(f"{k} {v}" for k, v in r["failed_by_modifier"].items()) or "none"
        rate = f"{100 * r['rate']:.0f} %" if r["rate"] is not None else "n/a"
        print(f"| {r['language']} | {r['package']} | {r['compiled_pristine']} | {rate} | {failures} |")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "treesitter_compile.json"
    path.write_text(json.dumps({"cpu": cpu_model(), "seed": SEED, "rows": rows}, indent=2))
    print(f"\nwritten: {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
