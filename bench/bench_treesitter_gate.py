"""Gate cost per candidate for the tree-sitter languages: full parse vs incremental reparse.

Run from the repository root::

    .venv/bin/python bench/bench_treesitter_gate.py           # 5 repetitions
    .venv/bin/python bench/bench_treesitter_gate.py --quick   # 2 repetitions

1. Fetches (once, into ``bench/.cache/treesitter``) one large real source file per language
   from pinned registry packages: ``npm pack`` for JavaScript/TypeScript, ``apt-get download``
   of Debian packages that ship sources for Go, Rust, Java, C, C++ and Ruby.
2. Generates candidate batches with a fixed seed: an identifier renamed (valid) or followed by
   an unclosed ``(`` (broken, one in five). "same target": 5 targets x 10 candidates, as
   when N samples answer one localized change; "valid only": its 40 valid candidates (the
   incremental path alone: a broken candidate is confirmed by a full parse);
   "scattered": 50 candidates anywhere in the file.
3. Runs the real stage (e) gate (``gen09_core.gate.gate``) over each batch with a
   ``TreeSitterPack`` that parses every candidate from scratch, and with one that reparses
   incrementally from the closest cached tree; checks both reject the same candidates with
   the same details; prints the per-candidate time (best of the repetitions, as the machine
   may be shared) and the ratio full / incremental, writes JSON to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from common import CACHE, RESULTS, cpu_model

from gen09_core.gate import gate
from gen09_core.models import Applied, Candidate, ChangedFile, Edit, SourceFile
from gen09_core.plugins import make_registry
from gen09_treesitter import TreeSitterPack
from gen09_treesitter.languages import LANGUAGES

TS_CACHE = CACHE / "treesitter"
KINDS = ("same", "valid", "scattered")
SEED = 9
# (language, registry, pinned package, file inside it; "a.tar.gz!b" = member b of archive a)
SOURCES = (
    ("javascript", "npm", "lodash@4.17.21", "package/lodash.js"),
    ("typescript", "npm", "rxjs@7.8.1", "package/src/internal/testing/TestScheduler.ts"),
    ("typescript", "npm", "typescript@5.4.5", "package/lib/typescript.d.ts"),
    ("go", "deb", "golang-github-spf13-cobra-dev=1.6.1-1",
     "usr/share/gocode/src/github.com/spf13/cobra/command.go"),
    ("rust", "deb", "librust-syn-dev=1.0.107-1", "usr/share/cargo/registry/syn-1.0.107/src/expr.rs"),
    ("java", "deb", "bsh-src=2.0b4-20", "usr/src/bsh-src/bsh.tar.gz!src/bsh/NameSpace.java"),
    ("java", "deb", "bsh-src=2.0b4-20", "usr/src/bsh-src/bsh.tar.gz!src/bsh/Parser.java"),
    ("c", "deb", "uwsgi-src=2.0.21-5.1", "usr/src/uwsgi/plugins/python/uwsgi_pymodule.c"),
    ("cpp", "deb", "nlohmann-json3-dev=3.11.2-2", "usr/include/nlohmann/json.hpp"),
    ("ruby", "deb", "ruby-rack=2.2.22-0+deb12u1",
     "usr/share/rubygems-integration/all/gems/rack-2.2.22/lib/rack/lint.rb"),
)


def fetch(registry: str, package: str, member: str) -> Path:
    """The unpacked file ``member`` of the pinned ``package``, fetched once."""
    folder = TS_CACHE / package.replace("=", "_").replace("@", "_").replace("/", "_")
    if not folder.is_dir():
        download = TS_CACHE / "download"
        shutil.rmtree(download, ignore_errors=True)
        download.mkdir(parents=True)
        print(f"fetching {package} ({registry})", file=sys.stderr)
        if registry == "npm":
            subprocess.run(["npm", "pack", "--silent", package], cwd=download, check=True,
                           stdout=subprocess.DEVNULL)
            (archive,) = download.glob("*.tgz")
            with tarfile.open(archive) as tar:
                tar.extractall(download / "x", filter="data")
        else:
            subprocess.run(["apt-get", "download", package], cwd=download, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            (archive,) = download.glob("*.deb")
            subprocess.run(["dpkg-deb", "-x", archive, download / "x"], check=True)
        (download / "x").rename(folder)
        shutil.rmtree(download)
    outer, _, inner = member.partition("!")
    if not inner:
        return folder / outer
    target = folder / "inner" / inner
    if not target.is_file():
        with tarfile.open(folder / outer) as tar:
            tar.extract(inner, folder / "inner", filter="data")
    return target


def identifiers(pack: TreeSitterPack, language: str, text: str) -> list[tuple[int, int]]:
    """Character ranges of identifier leaves in ``text`` (candidate edit sites)."""
    grammar = pack.grammars[language]
    data = text.encode()
    tree = grammar.full_parse(data)
    lang = grammar.spec.load()
    types = {"identifier", "property_identifier", "field_identifier", "type_identifier"}
    types &= {lang.node_kind_for_id(i) for i in range(lang.node_kind_count)}
    sites = []
    for node in grammar.nodes(tree, types):
        start = len(data[:node.start_byte].decode())
        sites.append((start, start + len(node.text.decode())))
    return sites


def batch(path: str, text: str, sites, rng: random.Random, kind: str) -> list[Applied]:
    """50 candidates: 5 targets x 10 (``same``) or 50 random sites (``scattered``)."""
    chosen = rng.sample(sites, 5) if kind == "same" else rng.sample(sites, 50)
    chosen = [s for s in chosen for _ in range(10)] if kind == "same" else chosen
    original = SourceFile(path, text)
    out = []
    for i, (start, end) in enumerate(chosen):
        name = text[start:end]
        new = f"{name}_v{i}" if i % 5 else f"{name}_v{i}("
        new_text = text[:start] + new + text[end:]
        edit = Edit(path, content=new_text)
        out.append(Applied(Candidate(f"c{i}", (edit,)), (ChangedFile(path, original, new_text),)))
    return out


def run_gate(incremental: bool, applied: list[Applied]) -> tuple[float, list]:
    """Seconds per candidate of one gate run with a fresh pack, and its verdicts."""
    pack = TreeSitterPack(LANGUAGES, incremental=incremental)
    for spec in LANGUAGES:  # load grammars outside the timing
        pack.grammars[spec.name].full_parse(b"")
    registry = make_registry(extra=[("treesitter", pack)], load_entrypoints=False)
    start = time.perf_counter()
    results = gate(registry, applied, hard_lint=())
    elapsed = time.perf_counter() - start
    return elapsed / len(applied), [r.rejection for r in results]


def main() -> None:
    """Fetch, generate, time, print the table and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 repetitions instead of 5")
    parser.add_argument("--only", help="comma-separated languages to run")
    args = parser.parse_args()
    repeats = 2 if args.quick else 5
    only = set(args.only.split(",")) if args.only else None
    probe = TreeSitterPack(LANGUAGES)
    rows = []
    for language, registry, package, member in SOURCES:
        if only and language not in only:
            continue
        path = fetch(registry, package, member)
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = f"{path.name}"
        sites = identifiers(probe, language, text)
        row = {"language": language, "package": package, "file": member.rsplit("/", 1)[-1],
               "lines": text.count("\n") + 1, "kb": round(len(text.encode()) / 1024)}
        for kind in KINDS:
            spread = "scattered" if kind == "scattered" else "same"
            applied = batch(rel, text, sites, random.Random(SEED), spread)
            if kind == "valid":
                applied = [a for i, a in enumerate(applied) if i % 5]
            full, incr = [], []
            for _ in range(repeats):
                seconds, full_verdicts = run_gate(False, applied)
                full.append(seconds)
                seconds, incr_verdicts = run_gate(True, applied)
                incr.append(seconds)
                if full_verdicts != incr_verdicts:
                    raise SystemExit(f"{rel}: incremental and full parses disagree")
            rejected = sum(v is not None for v in full_verdicts)
            row[kind] = {"full_ms": round(min(full) * 1000, 2),
                         "incremental_ms": round(min(incr) * 1000, 2),
                         "rejected": rejected, "candidates": len(applied)}
            row[kind]["ratio"] = round(row[kind]["full_ms"] / row[kind]["incremental_ms"], 1)
        rows.append(row)
        print(f"  {language:10} {row['file']:22} " + " ".join(f"{k} x{row[k]['ratio']}" for k in KINDS),
              file=sys.stderr)
    print("ms per candidate, full parse → incremental (ratio); rejected of 50 in same target / scattered\n")
    print("| language | file (package) | lines | KiB | same target | valid only | scattered | rejected |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        cells = [f"{r[k]['full_ms']:.1f} → {r[k]['incremental_ms']:.1f} ({r[k]['ratio']}x)" for k in KINDS]
        print(f"| {r['language']} | {r['file']} ({r['package']}) | {r['lines']} | {r['kb']} | "
              + " | ".join(cells) + f" | {r['same']['rejected']}, {r['scattered']['rejected']} |")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "treesitter_gate.json"
    out.write_text(json.dumps({"cpu": cpu_model(), "python": sys.version.split()[0],
                               "repeats": repeats, "rows": rows}, indent=2))
    print(f"\nwritten: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
