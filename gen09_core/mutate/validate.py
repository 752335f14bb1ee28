"""Validation with SWE-smith's semantics, made fast with per-test coverage.

1. The pristine suite runs twice (the second time recording per-test coverage through
   coverage.py dynamic contexts). A test whose outcome differs between the runs is flaky
   and excluded; only tests that passed both times are eligible ("stable").
2. A mutant runs only the stable tests that executed the lines it changes (for a class
   mutation: any line of the class). No covering test → rejected without running anything.
3. FAIL_TO_PASS = stable tests that fail (or error, or vanish) on the mutant; PASS_TO_PASS
   = stable tests that pass. A task needs at least one of each.
4. An accepted mutant is confirmed once with its full F2P + P2P set (all stable tests); the
   confirmed sets are the task's sets.

By default (``confirm = "same_run"``) steps 2 and 4 share one process: the covering tests
run first and the run stops there unless one of them failed; then it goes on through every
stable test. ``confirm = "separate"`` starts a second process for the confirmation (cheaper
when collecting the whole suite is expensive).

With ``selection = "full"`` step 2 runs every stable test (SWE-smith's way) and that run is
already the confirmation; ``bench/bench_mutate_validation.py`` compares the two modes.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import cattrs
from attrs import field, frozen

from gen09_core.testrun.jobs import IMPORT_CONTEXT, TestJob, TestRun
from gen09_core.testrun.outcomes import PASSED as PASSING


@frozen
class Baseline:
    """The pristine suite, twice: stable passing tests, flaky ones, per-test coverage
    (``{file: {line: [node ids]}}``, limited to stable tests) and the lines each file ran
    at import time (``{file: [lines]}``)."""

    stable: tuple[str, ...]
    flaky: tuple[str, ...]
    failing: tuple[str, ...]
    coverage: dict[str, dict[int, list[str]]]
    seconds: float
    runs: tuple[dict, ...] = ()
    import_lines: dict[str, list[int]] = field(factory=dict)
    run_seconds: tuple[float, ...] = ()  # wall seconds of each pristine run
    problems: tuple[str, ...] = ()  # the first collection error (or crash output) of each run
    files: dict[str, str] = field(factory=dict)  # test id -> file, where the runner's report names one


def load_baseline(path: Path) -> Baseline:
    """Read ``baseline.json`` back (coverage line numbers become ints again)."""
    return cattrs.structure(json.loads(Path(path).read_text(encoding="utf-8")), Baseline)


def run_baseline(executor, run_fn, pristine: str, scratch: str, timeout_sec: float,
                 memory_mb: int) -> tuple[Baseline, list[TestRun]]:
    """Run the pristine suite twice, one after the other (never in parallel: a flaky test
    must not see its twin), and derive the baseline."""
    results = []
    for index, coverage in ((1, False), (2, True)):
        job = TestJob(f"baseline-{index}", pristine, scratch, tests=None, coverage=coverage,
                      timeout_sec=timeout_sec, memory_mb=memory_mb)
        results.extend(executor.run(run_fn, [job]))
    return derive_baseline(results[0], results[1]), results


def derive_baseline(first: TestRun, second: TestRun) -> Baseline:
    """Compare two pristine runs: tests passing in both are stable; any other disagreement
    is flaky; tests failing (or skipped) in both are simply not eligible."""
    a, b = first.outcomes, second.outcomes
    names = sorted(set(a) | set(b))
    flaky = tuple(n for n in names if a.get(n) != b.get(n))
    stable = tuple(n for n in names if a.get(n) == b.get(n) == PASSING)
    failing = tuple(n for n in names if n not in flaky and n not in stable)
    keep = set(stable)
    coverage, import_lines = {}, {}
    for path, lines in (second.coverage or {}).items():
        kept = {int(line): [t for t in ids if t in keep] for line, ids in lines.items()}
        kept = {line: ids for line, ids in kept.items() if ids}
        if kept:
            coverage[path] = kept
        at_import = sorted(int(line) for line, ids in lines.items() if IMPORT_CONTEXT in ids)
        if at_import:
            import_lines[path] = at_import
    problems = tuple(dict.fromkeys(r.problem for r in (first, second) if r.problem))
    return Baseline(stable, flaky, failing, coverage, first.seconds + second.seconds,
                    ({"status": first.status, "detail": first.detail},
                     {"status": second.status, "detail": second.detail}), import_lines,
                    (first.seconds, second.seconds), problems,
                    {n: f for n, f in {**first.files, **second.files}.items() if n in set(names)})


def changed_lines(old: str, new: str) -> list[int]:
    """1-based line numbers of ``old`` that the change replaces or deletes; a pure insertion
    counts the line it lands before (or the last line)."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    out: set[int] = set()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            out.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            out.add(min(i1 + 1, max(len(old_lines), 1)))
    return sorted(out)


def select_tests(baseline: Baseline, path: str, lines: list[int], kind: str,
                 span: tuple[int, int]) -> tuple[str, ...]:
    """The stable tests that executed the changed lines. Widened when the effect can reach
    beyond them: for a class mutation, tests that executed any line of the class; when a
    changed line also ran at import time (a decorator or a class body calling it), tests
    that executed any line of the file."""
    covered = baseline.coverage.get(path, {})
    if kind == "class":
        lines = range(span[0], span[1] + 1)
    elif set(lines) & set(baseline.import_lines.get(path, ())):
        lines = list(covered)
    selected: set[str] = set()
    for line in lines:
        selected.update(covered.get(line, ()))
    return tuple(sorted(selected))


@frozen
class Verdict:
    """A mutant's validation result; ``status`` is ``valid`` or a rejection reason. The
    costs of its run: wall and CPU seconds of the runner, the summed durations of the tests
    themselves (the floor no runner can beat), and which runner ran it."""

    status: str
    fail_to_pass: tuple[str, ...] = ()
    pass_to_pass: tuple[str, ...] = ()
    ran: tuple[str, ...] = ()
    seconds: float = 0.0
    detail: str = ""
    failures: dict = field(factory=dict)
    cpu_seconds: float = 0.0
    test_seconds: float = 0.0
    runner: str = "fresh"


def _verdict(status: str, run: TestRun, ran, f2p=(), p2p=(), failures=None, detail="") -> Verdict:
    return Verdict(status, tuple(f2p), tuple(p2p), tuple(ran), run.seconds, detail, failures or {},
                   run.cpu_seconds, run.test_seconds, run.runner)


def judge(baseline: Baseline, run: TestRun, ran: tuple[str, ...], selection: str) -> Verdict:
    """F2P/P2P from one mutant run over ``ran``; in coverage mode the stable tests that did
    not run are P2P candidates, to be confirmed."""
    if run.status != "ok":
        return _verdict(run.status, run, ran, detail=run.detail)
    f2p = tuple(t for t in ran if run.outcomes.get(t, "error") != PASSING)
    if selection == "full":
        p2p = tuple(t for t in ran if run.outcomes.get(t) == PASSING)
    else:
        failed = set(f2p)
        p2p = tuple(t for t in baseline.stable if t not in failed)
    failures = {t: run.failures[t] for t in f2p if t in run.failures}
    if not f2p:
        return _verdict("no_fail_to_pass", run, ran, (), p2p)
    if not p2p:
        return _verdict("no_pass_to_pass", run, ran, f2p, ())
    return _verdict("valid", run, ran, f2p, p2p, failures)


def judge_same_run(baseline: Baseline, run: TestRun,
                   selected: tuple[str, ...]) -> tuple[Verdict, bool | None]:
    """A run that put the covering tests first and went on to every stable test only when
    one of them failed: ``(verdict, selection_agrees)``. A caught mutant's verdict comes from
    the complete F2P + P2P set (the confirmation); otherwise from the covering tests alone."""
    if run.status != "ok":
        return _verdict(run.status, run, selected, detail=run.detail), None
    caught = tuple(t for t in selected if run.outcomes.get(t, "error") != PASSING)
    if not caught:
        return _verdict("no_fail_to_pass", run, selected), None
    verdict = judge(baseline, run, baseline.stable, "full")
    return verdict, sorted(caught) == sorted(verdict.fail_to_pass)


def confirm(baseline: Baseline, run: TestRun) -> Verdict:
    """Re-derive F2P/P2P from a run over every stable test (the confirmation)."""
    return judge(baseline, run, baseline.stable, "full")
