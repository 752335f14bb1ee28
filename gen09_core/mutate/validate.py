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
when collecting the whole suite is expensive). ``confirm = "coverage"`` skips step 4: every
covering test runs (F2P = those that fail), and every other stable test is P2P because it
never executed a changed line; fastest, but a test that fails on the mutant only because an
earlier failing test left state behind (an order effect) is P2P here and F2P in a whole-suite
run.

With ``selection = "full"`` step 2 runs every stable test (SWE-smith's way) and that run is
already the confirmation; ``bench/bench_mutate_validation.py`` compares the two modes.
"""

from __future__ import annotations

import ast
import difflib

from attrs import evolve, field, frozen

from gen09_core.mutate.baseline import Baseline
from gen09_core.mutate.issue import doctest_said
from gen09_core.testrun.jobs import INFRASTRUCTURE, TestRun, failure_of
from gen09_core.testrun.outcomes import PASSED as PASSING


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


_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.TryStar, ast.With, ast.AsyncWith,
             ast.Match)


def branch_lines(old: str, lines: list[int]) -> list[int]:
    """``lines`` (changed lines of the Python text ``old``) and the first line of every
    compound statement (``if``, a loop, ``try``, ``with``, ``match``) one of them belongs to
    itself rather than to a statement inside it: an ``else:``, ``except`` or ``finally``
    line, or a line between its statements. Such a change (an ``if`` whose two bodies swapped
    places, which a line diff shows as one body moved past the other) reroutes every run that
    reached the statement, also the runs that executed no changed line — found on Markdown
    3.7, where the tests of the ``else`` body, which the diff leaves unchanged, were not
    selected. Text that does not parse: ``lines`` as given."""
    try:
        tree = ast.parse(old)
    except (SyntaxError, ValueError):
        return lines
    changed, heads = set(lines), set()
    for node in ast.walk(tree):
        if not isinstance(node, _COMPOUND):
            continue
        parts = [*getattr(node, "body", ()), *getattr(node, "orelse", ()), *getattr(node, "finalbody", ())]
        parts += [s for h in getattr(node, "handlers", ()) for s in h.body]
        parts += [s for case in getattr(node, "cases", ()) for s in case.body]
        inside = {n for part in parts for n in range(part.lineno, part.end_lineno + 1)}
        if changed & (set(range(node.lineno, node.end_lineno + 1)) - inside):
            heads.add(node.lineno)
    return sorted(changed | heads)


def select_tests(baseline: Baseline, path: str, lines: list[int], kind: str,
                 span: tuple[int, int]) -> tuple[str, ...]:
    """The stable tests that executed the changed lines. Widened when the effect can reach
    beyond them: for a class mutation, tests that executed any line of the class; when a
    changed line (or a line of the mutated class) also ran at import time — a decorator, a
    class body, a class statement: its bases, used by ``except`` or ``pytest.raises`` with no
    line of the class running — tests that executed any line of the file."""
    covered = baseline.coverage.get(path, {})
    if kind == "class":
        lines = range(span[0], span[1] + 1)
    if set(lines) & set(baseline.import_lines.get(path, ())):  # a class statement always runs at import
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
    failures = {t: failure for t in f2p if (failure := failure_of(run, t))}
    if not f2p:
        return _verdict("no_fail_to_pass", run, ran, (), p2p)
    if not p2p:  # every test failed: what the run reported first says why (a build that failed)
        said = (run.problem or next((failure["message"] for failure in failures.values()), "")).strip()
        # a doctest's report opens with its docstring's numbered lines (easydict 1.14: "016 ")
        said = doctest_said(said) or said
        return _verdict("no_pass_to_pass", run, ran, f2p, (), detail=said.split("\n", 1)[0][:300])
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


SAME_RUN = "same run: every stable test ran after a covering test failed"


@frozen
class Validated:
    """The validation stage's result: every mutant's verdict and saved record, by id."""

    verdicts: dict[str, Verdict]
    records: dict


def mutant_job(ctx, work, measured, mutant, job_id: str):
    """The validation job of ``mutant`` (named ``job_id``), the tests it selects and the
    changed lines they were selected by; the job is None when no stable test covers them."""
    from gen09_core.testrun.jobs import TestJob

    baseline, options = measured.baseline, ctx.options
    same_run = options.selection == "coverage" and options.confirm == "same_run"
    pristine = (work.pristine / mutant.path).read_text(encoding="utf-8")
    lines = branch_lines(pristine, changed_lines(pristine, mutant.text))
    tests = (select_tests(baseline, mutant.path, lines, mutant.kind, mutant.span)
             if options.selection == "coverage" else baseline.stable)
    if not tests:
        return None, tests, lines
    return TestJob(job_id, str(work.pristine), str(work.scratch), {mutant.path: mutant.text},
                   baseline.stable if same_run else tests, False, measured.timeout,
                   ctx.config.limits.memory_mb, first=tests if same_run else None,
                   stall_sec=measured.stall, file_order=baseline.file_order), tests, lines


def validate_stage(ctx, work, measured, mutants, runners, records) -> Validated:
    """Run every mutant on the stable tests that can see it (all of them under
    ``selection = "full"``) and judge it; a mutant with a saved verdict is not run again."""
    baseline, options, journal = measured.baseline, ctx.options, ctx.journal
    same_run = options.selection == "coverage" and options.confirm == "same_run"
    verdicts, saved, jobs, todo = {}, {}, [], {}
    by_id = {m.mutant_id: m for m in mutants}
    for mutant in mutants:
        mid = mutant.mutant_id
        record = records.load(mid)
        if record is not None and record.verdict is not None:
            verdicts[mid], saved[mid] = record.verdict, record
            continue
        job, tests, lines = mutant_job(ctx, work, measured, mutant, mid)
        if job is None:
            verdicts[mid] = Verdict("uncovered", detail=f"no stable test runs lines {lines[:5]}")
            saved[mid] = records.save(mid, evolve(records.start(mutant), verdict=verdicts[mid]))
            continue
        todo[mid] = tests
        jobs.append(job)
    journal.event("validate", "started", total=len(jobs), completed=0,
                  detail={"selection": options.selection, "decided_without_running": len(verdicts)})
    for done, run in enumerate(ctx.executor.run(runners.mutant(), jobs), 1):
        mutant = by_id[run.job_id]
        record = records.start(mutant)
        if same_run:
            verdict, agrees = judge_same_run(baseline, run, todo[run.job_id])
            if agrees is not None:
                record = evolve(record, confirmed=verdict, selection_agrees=agrees, confirmation=SAME_RUN)
        else:
            verdict = judge(baseline, run, todo[run.job_id], options.selection)
        verdicts[run.job_id] = verdict
        saved[run.job_id] = records.save(run.job_id, evolve(record, verdict=verdict))
        journal.event("validate", "progress", run.job_id,
                      failure_class=INFRASTRUCTURE if verdict.detail.startswith(INFRASTRUCTURE) else None,
                      total=len(jobs), completed=done,
                      detail={"status": verdict.status, "tests": len(verdict.ran),
                              "seconds": round(verdict.seconds, 3), "runner": verdict.runner})
    journal.event("validate", "done", detail={"valid": sum(v.status == "valid" for v in verdicts.values())})
    return Validated(verdicts, saved)
