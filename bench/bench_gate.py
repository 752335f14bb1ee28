"""Benchmark the gen09 gate against a per-candidate lint-subprocess baseline, on real code.

Run from the repository root::

    .venv/bin/python bench/bench_gate.py            # full run (a few minutes)
    .venv/bin/python bench/bench_gate.py --quick    # fewer repetitions

What it does, all in one run:

1. Fetches a pinned boltons sdist with ``pip download`` into ``bench/.cache`` and unpacks it.
2. In a few large boltons modules, picks a function (seeded) and generates candidate
   batches with a target span: one-line edits that are valid (constant changed, harmless
   statement added, expression parenthesized), duplicates differing only by a comment, and
   broken ones (syntax, undefined name, unused import).
3. Times, for N = 1, 10, 50 candidates: (a) ``pipeline.run_batch`` (apply + gate + dedup;
   one ruff process for the batch) and (b) a baseline that, per candidate, applies the
   edit, compiles it in process and runs ruff on the file before and after the edit (two
   subprocesses per candidate). Checks that both reject the same candidates.
4. Times cold ``gen09 apply examples/candidates.json --repo examples/calc`` next to cold
   ``python -c pass`` and ``ruff --version``, and profiles its imports.
5. Prints a markdown table and writes JSON to ``bench/results/``.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from common import (
    CACHE,
    ROOT,
    add_wait_idle,
    fetch_sdist,
    machine,
    median_ms,
    save_results,
    spread_ms,
    timed,
    wait_idle,
)

from gen09_core.apply import apply_candidate
from gen09_core.candidates import SCHEMA, parse
from gen09_core.dedup import dedup
from gen09_core.gate import gate
from gen09_core.models import Applied
from gen09_core.pipeline import run_batch, unified_diff
from gen09_core.plugins import default_registry
from gen09_core.repo import Snapshot
from gen09_core.targets import check_target
from gen09_python.lint import ruff_binary
from gen09_python.pack import gen09_entities

BOLTONS_VERSION = "25.0.0"
# Three large real modules, and one small one to show how the ratio depends on file size.
FILES = ("boltons/iterutils.py", "boltons/strutils.py", "boltons/urlutils.py", "boltons/jsonutils.py")
SIZES = (1, 10, 50)
SELECT = ("F821", "F401")
SEED = 9
TARGET_RATIO = 4.0  # baseline / gen09 at N = 10
TARGET_COLD_MS = 250.0

KINDS = {  # kind: (weight, expected verdict)
    "constant": (25, "valid"),
    "insert": (20, "valid"),
    "paren": (15, "valid"),
    "comment_dup": (5, "valid"),
    "syntax": (15, "rejected"),
    "undefined": (15, "rejected"),
    "unused_import": (5, "rejected"),
}
SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise,
          ast.Assert, ast.Delete, ast.Pass, ast.Break, ast.Continue)
SPARE_MODULES = ("colorsys", "getpass", "mailbox", "netrc", "sched", "wave", "zipapp", "tabnanny")


# --------------------------------------------------------------------------- candidates


@dataclass(frozen=True)
class Site:
    """A line inside the target function holding exactly one simple one-line statement."""

    line: int
    text: str
    indent: str
    ints: tuple  # (start col, end col, value)
    names: tuple  # (start col, end col, identifier) of loaded names
    follows_sibling: bool  # the line before is a one-line statement at the same indentation


def _occurrences(text: str, needle: str) -> int:
    count, at = 0, text.find(needle)
    while at != -1:
        count += 1
        at = text.find(needle, at + 1)
    return count


def _sites(text: str, node: ast.AST) -> list[Site]:
    lines = text.split("\n")
    stmts = [n for n in ast.walk(ast.parse(text)) if isinstance(n, ast.stmt)]
    starts = Counter(n.lineno for n in stmts)
    one_liners = {(n.lineno, n.col_offset) for n in stmts if n.lineno == n.end_lineno}
    sites = []
    for stmt in ast.walk(node):
        if not isinstance(stmt, SIMPLE) or stmt is node or stmt.lineno != stmt.end_lineno:
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # docstrings
        line = lines[stmt.lineno - 1]
        indent = line[: stmt.col_offset]
        if (starts[stmt.lineno] != 1 or indent.strip() or not line.isascii()
                or line.rstrip().endswith((";", "\\")) or _occurrences(text, line + "\n") != 1):
            continue
        parts = list(ast.walk(stmt))
        ints = tuple(sorted((n.col_offset, n.end_col_offset, n.value) for n in parts
                            if isinstance(n, ast.Constant) and type(n.value) is int
                            and line[n.col_offset:n.end_col_offset] == str(n.value)))
        names = ()
        if not any(isinstance(n, ast.JoinedStr) for n in parts):
            names = tuple(sorted((n.col_offset, n.end_col_offset, n.id) for n in parts
                                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)))
        sibling = (stmt.lineno - 1, stmt.col_offset) in one_liners
        sites.append(Site(stmt.lineno, line, indent, ints, names, sibling))
    return sorted(sites, key=lambda s: s.line)


def pick_function(path: str, text: str, rng: random.Random):
    """A function or method of 20-200 lines with at least 8 editable lines (seeded)."""
    tree = ast.parse(text)
    nodes = {(n.name, n.lineno): n for n in ast.walk(tree)
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    choices = []
    for entity in gen09_entities(language="python", path=path, text=text):
        if entity.kind not in ("function", "method") or not 20 <= entity.span.lines <= 200:
            continue
        short = entity.name.rsplit(".", 1)[-1]
        node = next(n for (name, line), n in nodes.items()
                    if name == short and entity.span.start <= line <= entity.span.end)
        sites = _sites(text, node)
        if len(sites) >= 8:
            choices.append((entity, sites))
    if not choices:
        raise SystemExit(f"{path}: no function fits the benchmark")
    return rng.choice(choices)


def _edit(site: Site, kind: str, i: int, rng: random.Random, text: str, made: list):
    """``(search, replace)`` for one candidate of ``kind`` at ``site``, or None if it does
    not apply there."""
    line, ind = site.text, site.indent
    search = line + "\n"
    if kind == "constant" and site.ints:
        start, end, value = rng.choice(site.ints)
        return search, f"{line[:start]}{value + 1 + i}{line[end:]}\n"
    if kind == "insert":
        return search, f"{ind}_bench_{i} = {i}\n{line}\n"
    if kind == "paren" and site.names:
        start, end, name = rng.choice(site.names)
        return search, f"{line[:start]}({name}){line[end:]}\n"
    if kind == "syntax":
        variant = rng.randrange(3)
        if variant == 0:
            return search, line + ")\n"
        if variant == 1:
            return search, line + " +\n"
        if site.follows_sibling and len(ind) >= 4 and not ind.strip(" "):
            return search, line[1:] + "\n"  # unindent matching no outer level
        return None
    if kind == "undefined" and site.names:
        start, end, name = rng.choice(site.names)
        typo = name[:-1] if len(name) >= 4 else name + "x"
        if hasattr(builtins, typo) or re.search(rf"\b{re.escape(typo)}\b", text):
            return None
        return search, f"{line[:start]}{typo}{line[end:]}\n"
    if kind == "unused_import":
        spare = [m for m in SPARE_MODULES if m not in text]
        return search, f"{ind}import {spare[i % len(spare)]}\n{line}\n"
    if kind == "comment_dup":
        valid = [(s, r) for k, s, r in made if KINDS[k][1] == "valid" and k != "comment_dup"]
        if valid:
            s, r = rng.choice(valid)
            return s, r[:-1] + "  # bench: same change\n"
    return None


def make_candidates(path: str, text: str, count: int, seed: int) -> dict:
    """A seeded batch of ``count`` one-line candidates inside one function of ``path``, in
    the ``candidates.json`` format; ``expected`` maps each id to the verdict its kind aims at."""
    rng = random.Random(f"{seed}:{path}")
    entity, sites = pick_function(path, text, rng)
    kinds, weights = zip(*((k, w) for k, (w, _) in KINDS.items()), strict=True)
    made, seen = [], set()
    while len(made) < count:
        kind = rng.choices(kinds, weights)[0]
        edit = _edit(rng.choice(sites), kind, len(made), rng, text, made)
        if edit is None or edit in seen:
            continue
        seen.add(edit)
        made.append((kind, *edit))
    module = path.removesuffix(".py").replace("/", ".")
    candidates = [{"id": f"{kind}-{i}", "search": s, "replace": r}
                  for i, (kind, s, r) in enumerate(made)]
    return {
        "version": 1,
        "format": "search_replace",
        "target": {"file": path, "span": entity.span.as_list(), "entity": f"{module}.{entity.name}"},
        "candidates": candidates,
        "expected": {c["id"]: KINDS[k][1] for c, (k, _, _) in zip(candidates, made, strict=True)},
    }


# --------------------------------------------------------------------------- the two gates


def gen09_gate(batch, repo: Path, registry) -> dict[str, str]:
    """gen09: apply + gate + dedup through the library pipeline; id → status (or
    ``rejected:<stage>/<reason>``)."""
    report = run_batch(batch, repo, registry)
    return {o.id: o.status if o.status != "rejected"
            else f"rejected:{o.rejection.stage}/{o.rejection.reason}" for o in report.outcomes}


def gen09_stages(batch, repo: Path, registry) -> dict[str, float]:
    """The stages of ``run_batch`` called one by one, each timed (seconds): target check,
    apply (d), gate (e) syntax-only and with hard lint, dedup (f), diffs of the survivors."""
    times = {}
    start = time.perf_counter()
    snapshot = Snapshot(repo)
    check_target(registry, snapshot, batch.target)
    times["target_check"] = time.perf_counter() - start
    start = time.perf_counter()
    applied = [a for a in (apply_candidate(registry, snapshot, c, batch.target)
                           for c in batch.candidates) if isinstance(a, Applied)]
    times["apply"] = time.perf_counter() - start
    start = time.perf_counter()
    gate(registry, applied, ())
    times["gate_syntax"] = time.perf_counter() - start
    start = time.perf_counter()
    verdicts = gate(registry, applied, SELECT)
    times["gate_syntax_and_lint"] = time.perf_counter() - start
    survivors = [a for a, v in zip(applied, verdicts, strict=True) if v.rejection is None]
    start = time.perf_counter()
    dedup(registry, [(a.candidate.id, a) for a in survivors])
    times["dedup"] = time.perf_counter() - start
    start = time.perf_counter()
    for a in survivors:
        unified_diff(a)
    times["diff"] = time.perf_counter() - start
    return times


def _ruff_json(ruff: str, file: Path) -> list[tuple[str, str]]:
    cmd = [ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--quiet",
           "--output-format", "json", "--select", ",".join(SELECT), str(file)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=file.parent)
    return [(item["code"], item["message"]) for item in json.loads(done.stdout or "[]")
            if item.get("code")]


def baseline_gate(data: dict, repo: Path, ruff: str) -> dict[str, str]:
    """The common agent-harness loop, per candidate: apply the edit, write the file to a
    temporary folder, ruff it before and after the edit (two subprocesses), compile it in
    process. A finding rejects only if the edit introduced it (same rule as gen09)."""
    path = data["target"]["file"]
    original = (repo / path).read_text(encoding="utf-8")
    verdicts = {}
    with tempfile.TemporaryDirectory(prefix="bench-baseline-") as tmp:
        file = Path(tmp, path)
        file.parent.mkdir(parents=True)
        for cand in data["candidates"]:
            if original.count(cand["search"]) != 1:
                verdicts[cand["id"]] = "rejected:apply"
                continue
            new = original.replace(cand["search"], cand["replace"], 1)
            file.write_text(original, encoding="utf-8")
            before = _ruff_json(ruff, file)
            file.write_text(new, encoding="utf-8")
            after = _ruff_json(ruff, file)
            try:
                compile(new, path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                verdicts[cand["id"]] = "rejected:parse"
                continue
            introduced = Counter(after) - Counter(before)
            verdicts[cand["id"]] = "rejected:lint" if introduced else "valid"
    return verdicts


def bench_gate(repo: Path, ruff: str, sizes, reps: int, seed: int) -> list[dict]:
    """Time both gates for each file and size; median of ``reps`` after one warm-up."""
    registry = default_registry()
    rows = []
    for path in FILES:
        text = (repo / path).read_text(encoding="utf-8")
        full = make_candidates(path, text, max(sizes), seed)
        for n in sizes:
            data = {**full, "candidates": full["candidates"][:n]}
            expected = {c["id"]: full["expected"][c["id"]] for c in data["candidates"]}
            batch = parse({k: v for k, v in data.items() if k != "expected"}, "bench")
            ours = gen09_gate(batch, repo, registry)  # warm-up, and the verdicts compared
            theirs = baseline_gate(data, repo, ruff)
            g_times, b_times, stages = [], [], []
            for rep in range(reps):
                runs = [(g_times, gen09_gate, (batch, repo, registry)),
                        (b_times, baseline_gate, (data, repo, ruff))]
                for samples, fn, fn_args in runs if rep % 2 == 0 else runs[::-1]:
                    samples.append(timed(fn, *fn_args)[0])
                stages.append(gen09_stages(batch, repo, registry))
            stage_ms = {k: median_ms([s[k] for s in stages]) for k in stages[0]}
            gate_only = [s["apply"] + s["gate_syntax_and_lint"] for s in stages]
            disagree = {cid: {"gen09": ours[cid], "baseline": theirs[cid]} for cid in ours
                        if ours[cid].startswith("rejected") != theirs[cid].startswith("rejected")}
            unexpected = {cid: {"expected": expected[cid], "gen09": ours[cid]} for cid in ours
                          if (expected[cid] == "rejected") != ours[cid].startswith("rejected")}
            g, b, ag = median_ms(g_times), median_ms(b_times), median_ms(gate_only)
            rows.append({
                "file": path, "lines": text.count("\n"), "target": data["target"], "n": n,
                "gen09_ms": g, "gen09_range_ms": spread_ms(g_times),
                "baseline_ms": b, "baseline_range_ms": spread_ms(b_times),
                "ratio": round(b / g, 2),
                "gen09_apply_gate_ms": ag, "ratio_apply_gate": round(b / ag, 2),
                "gen09_stage_ms": stage_ms,
                "statuses": dict(Counter(s.split("/")[0] for s in ours.values())),
                "rejected": sum(s.startswith("rejected") for s in ours.values()),
                "kinds": dict(Counter(cid.rsplit("-", 1)[0] for cid in ours)),
                "disagreements": disagree, "unexpected": unexpected,
            })
            print(f"  {path} N={n}: gen09 {g} ms (apply+gate {ag} ms), baseline {b} ms, "
                  f"x{rows[-1]['ratio']} (x{rows[-1]['ratio_apply_gate']})", file=sys.stderr)
    return rows


# --------------------------------------------------------------------------- cold start


APPLY = "gen09 apply examples/candidates.json --repo examples/calc"
APPLY_PYC = APPLY + " (bytecode cached)"
IMPORTS = {  # what a cold `gen09 apply` imports, each measured alone in a fresh process
    "click": "import click",
    "rich (console + table)": "import rich.console, rich.table",
    "attrs": "import attrs",
    "pluggy": "import pluggy",
    "importlib.metadata + entry-point scan": "from importlib.metadata import entry_points; "
                                             "entry_points(group='gen09')",
    "fastjsonschema (+ compiling the schema)": f"import fastjsonschema; fastjsonschema.compile({SCHEMA!r})",
    "gen09_core.models": "import gen09_core.models",
    "gen09_core.pipeline": "import gen09_core.pipeline",
    "gen09_core.cli": "import gen09_core.cli",
    "default_registry() (all entry points)": "from gen09_core.plugins import default_registry; "
                                             "default_registry()",
    "gen09_core.llm": "import gen09_core.llm",
    "gen09_treesitter.plugin": "import gen09_treesitter.plugin",
}


def _envs() -> tuple[dict, dict]:
    """The environment as given (minus plugin selection), and the same with a bytecode
    cache under ``bench/.cache`` (matters when ``PYTHONDONTWRITEBYTECODE`` is set, as an
    installed package would have its ``.pyc`` files)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GEN09_PLUGINS", "GEN09_GENERATOR")}
    pyc = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    pyc["PYTHONPYCACHEPREFIX"] = str(CACHE / "pycache")
    return env, pyc


def bench_cold(ruff: str, runs: int) -> dict:
    """Cold wall times of ``gen09 apply`` on the example, process-startup baselines and the
    standalone import cost of what it loads, all measured in the same interleaved rounds."""
    env, pyc = _envs()
    gen09 = str(Path(sys.executable).parent / "gen09")
    apply_cmd = [gen09, "apply", "examples/candidates.json", "--repo", "examples/calc"]
    commands = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "ruff --version": ([ruff, "--version"], env),
        APPLY: (apply_cmd, env),
        APPLY_PYC: (apply_cmd, pyc),
    }
    commands.update({f"import {name}": ([sys.executable, "-c", code], pyc)
                     for name, code in IMPORTS.items()})
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs + 1):  # the first round warms caches and is dropped
        for name, (cmd, cmd_env) in commands.items():
            start = time.perf_counter()
            done = subprocess.run(cmd, cwd=ROOT, env=cmd_env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, check=False)
            samples[name].append(time.perf_counter() - start)
            if done.returncode != 0:
                raise SystemExit(f"{name} exited {done.returncode}: {done.stderr.decode()[:500]}")
    out = {name: {"median_ms": median_ms(s[1:]), "range_ms": spread_ms(s[1:]), "runs": runs}
           for name, s in samples.items()}
    base = out["python -c pass"]["median_ms"]
    for name in commands:
        if name.startswith("import "):
            out[name]["over_python_ms"] = round(out[name]["median_ms"] - base, 1)
    return out


PHASES = """
import os, sys, time, json
t = [time.perf_counter()]
import gen09_core.cli
from gen09_core.cli.output import print_table
t.append(time.perf_counter())
from gen09_core.candidates import load
from gen09_core.pipeline import run_batch
t.append(time.perf_counter())
batch = load("examples/candidates.json")
t.append(time.perf_counter())
from gen09_core.plugins import default_registry
default_registry()
t.append(time.perf_counter())
report = run_batch(batch, "examples/calc")
t.append(time.perf_counter())
out, sys.stdout = sys.stdout, open(os.devnull, "w")
print_table(report)
sys.stdout = out
t.append(time.perf_counter())
print(json.dumps([b - a for a, b in zip(t, t[1:])]))
"""
PHASE_NAMES = ("import gen09_core.cli (click, ...)", "import candidates + pipeline (attrs, pluggy, ...)",
               "load candidates.json (fastjsonschema)", "default_registry() (entry points, packs)",
               "run_batch (incl. one ruff process)", "print the table")


def cold_phases(runs: int) -> dict:
    """One cold ``gen09 apply``'s steps, timed inside fresh processes (bytecode cached);
    interpreter start-up is the ``python -c pass`` row. Median ms per phase."""
    pyc = _envs()[1]
    samples = []
    for _ in range(runs + 1):
        done = subprocess.run([sys.executable, "-c", PHASES], cwd=ROOT, env=pyc,
                              capture_output=True, text=True, check=True)
        samples.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {name: median_ms([s[i] for s in samples[1:]]) for i, name in enumerate(PHASE_NAMES)}


def import_profile(top: int = 12) -> dict:
    """``python -X importtime`` of the same command (bytecode cached): top-level imports by
    cumulative time and the modules with the largest self time (microseconds, one run,
    profiler overhead included)."""
    env = _envs()[1]
    cmd = [sys.executable, "-X", "importtime", "-m", "gen09_core", "apply",
           "examples/candidates.json", "--repo", "examples/calc"]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m[1]), int(m[2]), len(m[3]), m[4]))
    toplevel = sorted((r for r in rows if r[2] == 1), key=lambda r: -r[1])
    return {
        "total_import_us": sum(r[1] for r in rows if r[2] == 1),
        "top_cumulative": [{"module": r[3], "cumulative_us": r[1]} for r in toplevel[:top]],
        "top_self": [{"module": r[3], "self_us": r[0]}
                     for r in sorted(rows, key=lambda r: -r[0])[:top]],
    }


# --------------------------------------------------------------------------- report


def markdown(results: dict) -> str:
    """The figures as a markdown section."""
    m = results["machine"]
    out = [f"Machine: {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, {m['ruff']}; "
           f"boltons {results['boltons']} sdist; load average (1, 5, 15 min) at start "
           f"{m['loadavg_at_start']}, at end {m.get('loadavg_at_end')}.", ""]
    if "gate" in results:
        out += _markdown_gate(results)
    if "cold" in results:
        out += _markdown_cold(results)
    return "\n".join(out)


def _markdown_gate(results: dict) -> list[str]:
    out = [f"Gate, median of {results['reps']} repetitions:", "",
           "| file (lines) | N | rejected | gen09 `run_batch` (ms) | gen09 apply+gate (ms) "
           "| baseline (ms) | baseline / `run_batch` | baseline / apply+gate |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results["gate"]:
        out.append(f"| {r['file']} ({r['lines']}) | {r['n']} | {r['rejected']} | {r['gen09_ms']} | "
                   f"{r['gen09_apply_gate_ms']} | {r['baseline_ms']} | {r['ratio']}× | "
                   f"{r['ratio_apply_gate']}× |")
    disagreements = sum(len(r["disagreements"]) for r in results["gate"])
    out += ["", f"Disagreements on which candidates are rejected: {disagreements}.", "",
            "gen09 stages, called one by one (median ms):", "",
            "| file | N | target check | apply (d) | gate: parse only | gate: parse + ruff "
            "| dedup (f) | diffs |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results["gate"]:
        st = r["gen09_stage_ms"]
        out.append(f"| {r['file']} | {r['n']} | {st['target_check']} | {st['apply']} | "
                   f"{st['gate_syntax']} | {st['gate_syntax_and_lint']} | {st['dedup']} | "
                   f"{st['diff']} |")
    return [*out, ""]


def _markdown_cold(results: dict) -> list[str]:
    runs = next(iter(results["cold"].values()))["runs"]
    out = [f"Cold processes, {runs} runs each, interleaved:", "",
           "| cold process | median (ms) | min–max (ms) | median / `python -c pass` |",
           "|---|---:|---:|---:|"]
    imports = []
    base = results["cold"]["python -c pass"]["median_ms"]
    for name, c in results["cold"].items():
        if name.startswith("import "):
            imports.append(f"| `{name[7:]}` | {c['over_python_ms']} | {c['median_ms']} |")
        else:
            out.append(f"| `{name}` | {c['median_ms']} | {c['range_ms'][0]}–{c['range_ms'][1]} | "
                       f"{c['median_ms'] / base:.2f}× |")
    out += ["", "Standalone import cost, each in a fresh process (bytecode cached; overlapping "
            "dependencies count in each row; median):", "",
            "| import | over `python -c pass` (ms) | process (ms) |", "|---|---:|---:|", *imports,
            "", "One cold `gen09 apply` step by step, timed inside a fresh process (bytecode "
            "cached; median ms; interpreter start-up not included):", "", "| phase | ms |",
            "|---|---:|"]
    out += [f"| {name} | {ms} |" for name, ms in results["cold_phases"].items()]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--reps", type=int, default=7, help="timed repetitions per configuration")
    ap.add_argument("--cold-runs", type=int, default=10, help="cold process runs per command")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--quick", action="store_true", help="3 repetitions, 5 cold runs")
    ap.add_argument("--only", choices=("gate", "cold"), help="run one of the two benchmarks")
    add_wait_idle(ap)
    args = ap.parse_args(argv)
    wait_idle(args.wait_idle)
    if args.quick:
        args.reps, args.cold_runs = 3, 5
    repo = fetch_sdist("boltons", BOLTONS_VERSION)
    ruff = ruff_binary()
    results = {"machine": machine(ruff), "boltons": BOLTONS_VERSION, "seed": args.seed,
               "reps": args.reps, "sizes": list(SIZES)}
    targets = results["targets"] = {}
    if args.only in (None, "gate"):
        print("gate:", file=sys.stderr)
        results["gate"] = bench_gate(repo, ruff, SIZES, args.reps, args.seed)
        at10 = [r["ratio"] for r in results["gate"] if r["n"] == 10]
        targets["ratio_at_10"] = {"target": TARGET_RATIO, "min": min(at10),
                                  "met": min(at10) >= TARGET_RATIO}
    if args.only in (None, "cold"):
        print("cold start:", file=sys.stderr)
        results["cold"] = bench_cold(ruff, args.cold_runs)
        results["cold_phases"] = cold_phases(args.cold_runs)
        results["imports"] = import_profile()
        cold = results["cold"][APPLY]["median_ms"]
        targets["cold_apply_ms"] = {"target": TARGET_COLD_MS, "median": cold,
                                    "met": cold <= TARGET_COLD_MS,
                                    "median_bytecode_cached": results["cold"][APPLY_PYC]["median_ms"]}
    results["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    print(markdown(results))
    for r in results.get("gate", []):
        for cid, d in r["disagreements"].items():
            print(f"DISAGREEMENT {r['file']} N={r['n']} {cid}: {d}")
        for cid, d in r["unexpected"].items():
            print(f"note: {r['file']} N={r['n']} {cid} expected {d['expected']}, gen09 said "
                  f"{d['gen09']}")
    print("\ntargets:", json.dumps(targets))
    if "imports" in results:
        print("top-level imports of cold gen09 apply (cumulative µs, -X importtime):")
        for item in results["imports"]["top_cumulative"]:
            print(f"  {item['cumulative_us']:>8}  {item['module']}")
    save_results(results, "bench-gate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
