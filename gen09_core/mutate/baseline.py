"""The pristine baseline of ``repo_mutate``: the suite run twice on the untouched copy.

A test whose outcome differs between the two runs is flaky and excluded, with every other
parametrization of the same test; only tests that passed both times are eligible
("stable"). When some tests are not stable, the stable ones run once more on their own —
the way a task's verifier and the confirmation run them — and any that does not pass there
is excluded too (``order_dependent``, counted as flaky): it passed only because a test that
is left out ran before it. That repeats until a run of them loses none: leaving a test out can
fail the next one (plum-dispatch 2.10.1's Markdown examples, run by sybil, each need the one
before: eight runs; three had left 405 tests that failed every verifier). The second run
records per-test coverage, from which validation picks the tests a mutant can affect. The
baseline also fixes each mutant run's timeout:
``limits.timeout_sec``, or a floor plus a multiple of the pristine run made without coverage
— and then also its stall limit: once the run's tests began, no test phase may use more CPU
time than a floor plus that multiple of that run's longest phase, nor three times that in wall
time (a hung mutant is ended there, not at the timeout). A mutant's run never traces coverage,
which can slow a suite severalfold (emoji 2.14.0: 30 s without, 167 s with, its longest phase
127 s under coverage; a hung mutant ran 505 s to a timeout derived from the coverage run).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from attrs import evolve, field, frozen

from gen09_core.errors import EnvironmentFailure, Gen09Error
from gen09_core.mutate.issue import doctest_said
from gen09_core.testrun.detect import has_test_files, unittest_named_files
from gen09_core.testrun.jobs import IMPORT_CONTEXT, TestJob, TestRun, failure_of, meta_folder
from gen09_core.testrun.outcomes import PASSED as PASSING
from gen09_core.testrun.watch import watching

TIMEOUT_FLOOR = 10.0  # seconds: a mutant's run may take this long beyond ...
TIMEOUT_FACTOR = 3.0  # ... this many times the pristine whole-suite run made without coverage
STALL_FLOOR = 1.0  # seconds: once its tests began, a mutant's run is ended when no test phase ends while it
# uses this much CPU plus TIMEOUT_FACTOR times the longest pristine phase, or in 3 times that wall time
# (process.limits): a hung mutant costs that, not the whole timeout
FLAKY_RULE = ("tests whose outcome differs between two pristine runs, or that do not pass when only the "
              "stable tests run, are excluded as flaky")
SELECTED_ROUNDS = 20  # runs of the stable tests on their own, until none drops out


class SourceIneligible(Gen09Error):
    """The repository cannot yield tasks (no stable passing tests): exit 1."""

    exit_code = 1


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
    order_dependent: tuple[str, ...] = ()  # passed in the whole suite, not among the stable tests alone
    longest_phase: float | None = None  # seconds of the pristine runs' longest test phase (None: unknown)
    file_order: tuple[str, ...] = ()  # the test files in the order the first whole-suite run met them
    uncollected: tuple[str, ...] = ()  # what pytest could not collect in either run (test files, mostly)
    first_failure: str = ""  # the first failing or skipped test, with its symptom when it has one


def save_baseline(path: Path, baseline: Baseline) -> None:
    """Write ``baseline.json``; its coverage names each test by its index in ``stable``
    (packaging 24.1: 1.16 million (line, test) pairs of 7,779 tests, 195 MB as full ids)."""
    from gen09_core.mutate.config import CONVERTER

    data = CONVERTER.unstructure(baseline)
    index = {test: i for i, test in enumerate(baseline.stable)}
    data["coverage"] = {path: {line: [index[t] for t in ids] for line, ids in lines.items()}
                        for path, lines in baseline.coverage.items()}
    Path(path).write_text(json.dumps(data, sort_keys=True) + "\n", encoding="utf-8")


def load_baseline(path: Path) -> Baseline:
    """Read ``baseline.json`` back (coverage line numbers become ints again, test indices the
    ``stable`` ids themselves — one string per test; a file an older gen09 wrote holds the
    ids)."""
    from gen09_core.mutate.config import CONVERTER

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    stable = data["stable"]
    same = {test: test for test in stable}
    data["coverage"] = {path: {int(line): [stable[t] if isinstance(t, int) else same.get(t, t) for t in ids]
                               for line, ids in lines.items()} for path, lines in data["coverage"].items()}
    return evolve(CONVERTER.structure({**data, "coverage": {}}, Baseline), coverage=data["coverage"])


def run_baseline(executor, run_fn, pristine: str, scratch: str, timeout_sec: float,
                 memory_mb: int, report=lambda job, done, total: None,
                 first_run_fn=None) -> tuple[Baseline, list[TestRun]]:
    """Run the pristine suite twice, one after the other (never in parallel: a flaky test
    must not see its twin), and derive the baseline; then, while some tests are left out,
    run the stable ones on their own and drop those that do not pass there. The first run
    goes to ``first_run_fn`` where given: a new interpreter's run beside warm ones, so that a
    test whose id or outcome depends on the interpreter is flaky, as a task's own run would
    show (isodate 0.7.2 parametrizes over a set holding ``None``, whose hash on Python 3.11 is
    its address: the children of one fork server share it, two interpreters do not).
    ``report(job id, tests finished, tests collected or None)`` hears how far each run got
    while it runs (where its record is on this machine) and when it ended."""
    results = []

    def run(job: TestJob, run_with=run_fn) -> None:
        record = meta_folder(job) / "outcomes.jsonl"
        with watching(record, lambda done, total: report(job.job_id, done, total)):
            results.extend(executor.run(run_with, [job]))
        report(job.job_id, len(results[-1].outcomes), len(results[-1].outcomes))

    for index, coverage, run_with in ((1, False, first_run_fn or run_fn), (2, True, run_fn)):
        run(TestJob(f"baseline-{index}", pristine, scratch, tests=None, coverage=coverage,
                    timeout_sec=timeout_sec, memory_mb=memory_mb), run_with)
    baseline = derive_baseline(results[0], results[1])
    for index in range(1, SELECTED_ROUNDS + 1):
        if not baseline.stable or not (baseline.flaky or baseline.failing) or results[-1].status != "ok":
            break
        run(TestJob(f"baseline-selected-{index}", pristine, scratch, tests=baseline.stable, coverage=False,
                    timeout_sec=timeout_sec, memory_mb=memory_mb, file_order=baseline.file_order))
        lost = tuple(t for t in baseline.stable if results[-1].outcomes.get(t) != PASSING)
        if results[-1].status != "ok" or not lost:
            break
        if index == SELECTED_ROUNDS:  # what is left was never seen passing on its own
            raise SourceIneligible(
                f"the stable tests do not settle: in the last of {SELECTED_ROUNDS} runs of them on their "
                f"own, {len(lost)} more did not pass ({lost[0]} first), each having passed only after a test "
                "left out before it; a task's verifier would fail them")
        baseline = drop_order_dependent(baseline, lost, results[-1].seconds)
    return baseline, results


def family(test_id: str) -> str:
    """A test id without its parametrization: ``f.py::test_x[a-1]`` → ``f.py::test_x``."""
    return test_id.split("[", 1)[0]


def drop_order_dependent(baseline: Baseline, lost: tuple[str, ...], seconds: float) -> Baseline:
    """``baseline`` without the stable tests ``lost`` (they did not pass when only the stable
    tests ran): they join ``flaky`` and ``order_dependent`` and leave the coverage map."""
    gone = set(lost)
    coverage = {path: kept for path, lines in baseline.coverage.items()
                if (kept := {line: [t for t in ids if t not in gone] for line, ids in lines.items()
                             if any(t not in gone for t in ids)})}
    return evolve(baseline, stable=tuple(t for t in baseline.stable if t not in gone),
                  flaky=tuple(sorted(baseline.flaky + lost)), coverage=coverage,
                  order_dependent=tuple(sorted(baseline.order_dependent + lost)),
                  seconds=baseline.seconds + seconds)


def derive_baseline(first: TestRun, second: TestRun) -> Baseline:
    """Compare two pristine runs: tests passing in both are stable; any other disagreement
    is flaky, and so is every parametrization of a flaky test (one racy case of
    ``test_x[...]`` makes its siblings suspect: two runs rarely catch them all) and every
    test the repository marks ``flaky`` (zipp 3.19.2's timing test passes both runs and
    fails under load; its rerun plugin is never loaded); tests failing (or skipped) in
    both are simply not eligible."""
    a, b = first.outcomes, second.outcomes
    names = sorted(set(a) | set(b))
    racy = {family(n) for n in names if a.get(n) != b.get(n)}
    racy |= {family(n) for n in first.marked_flaky + second.marked_flaky}
    flaky = tuple(n for n in names if family(n) in racy)
    stable = tuple(n for n in names if a.get(n) == b.get(n) == PASSING and family(n) not in racy)
    failing = tuple(n for n in names if n not in flaky and n not in stable)
    keep = {test: test for test in stable}  # one string per test in the coverage map
    coverage, import_lines = {}, {}
    for path, lines in (second.coverage or {}).items():
        kept = {int(line): [keep[t] for t in ids if t in keep] for line, ids in lines.items()}
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
                    {n: f for n, f in {**first.files, **second.files}.items() if n in set(names)},
                    longest_phase=first.longest_phase or second.longest_phase or None,  # first: no coverage
                    file_order=tuple(dict.fromkeys(t.split("::", 1)[0] for t in first.outcomes)),
                    uncollected=tuple(sorted(set(first.uncollected) | set(second.uncollected))),
                    first_failure=_first_failure(failing, first))


def _first_failure(failing: tuple[str, ...], run: TestRun) -> str:
    """``"<id>: <symptom>"`` for the first of ``failing`` (its outcome when it has no symptom)."""
    if not failing:
        return ""
    test = next((t for t in failing if failure_of(run, t)), failing[0])
    symptom = (failure_of(run, test) or {}).get("message") or run.outcomes.get(test, "not run")
    symptom = doctest_said(symptom) or symptom  # not the first line of a doctest's numbered listing
    return f"{test}: {(symptom.strip().splitlines() or [symptom])[0]}"


@frozen
class Measured:
    """The baseline stage's result: the baseline and the timeout of every mutant run, with
    where that timeout came from, and the stall limit (None: none)."""

    baseline: Baseline
    timeout: float
    timeout_source: str
    stall: float | None = None


def prime_stage(ctx, work, test_env) -> None:
    """Write the pristine copy's exact bytecode once, for a pytest environment (see
    :mod:`gen09_core.testrun.bytecode`); what it wrote, or why a step did not run, goes to
    the journal. Without it every test process compiles and rewrites the same files again."""
    from gen09_core.testrun.bytecode import prime
    from gen09_core.testrun.jobs import TestEnv

    if not isinstance(test_env, TestEnv):
        return
    primed = prime(test_env, work.pristine, work.scratch, ctx.config.limits.baseline_timeout_sec)
    ctx.journal.event("bytecode", "done", detail={
        "modules": primed.modules, "rewritten_tests": primed.rewritten, "problem": primed.problem})


def baseline_stage(ctx, work, runner, first_runner=None) -> Measured:
    """Run (or, resuming, read back) the baseline of ``work.pristine`` (its first run with
    ``first_runner`` where given: ``run_baseline``); raise ``EnvironmentFailure`` when the
    suite did not run and ``SourceIneligible`` when no test is stable."""
    from gen09_core.mutate.config import CONVERTER

    journal, limits = ctx.journal, ctx.config.limits
    path = ctx.out / "baseline.json"
    if path.exists():
        baseline = load_baseline(path)
        journal.event("baseline", "skipped", detail={"reason": "resumed"})
    else:
        journal.event("baseline", "started", "the whole pristine suite, twice")
        work.scratch.mkdir(parents=True, exist_ok=True)
        # an executor may keep the pristine runs on this machine (``pristine``): the second run
        # must see what the first left behind, as two consecutive runs of one folder do
        pristine_executor = getattr(ctx.executor, "pristine", ctx.executor)
        def report(job: str, done: int, total: int | None) -> None:
            journal.event("baseline", "progress", f"tests ({job})", total=total, completed=done)

        baseline, runs = run_baseline(pristine_executor, runner, str(work.pristine), str(work.scratch),
                                      limits.baseline_timeout_sec, limits.memory_mb, report, first_runner)
        bad = [r for r in runs if r.status != "ok"]
        if bad and not (bad[0].status == "crash" and not baseline.stable):
            journal.event("baseline", "failed", failure_class="infrastructure",
                          detail={"runs": [CONVERTER.unstructure(r) for r in bad]})
            detail = bad[0].detail  # its start says how the run ended, its end what it printed last
            detail = f"{detail[:300]} … {detail[-200:]}" if len(detail) > 500 else detail
            if bad[0].unfinished and not hasattr(ctx.recipe, "ecosystem"):  # one test ended the whole run
                # (a signal): the suite runs without it, and without the tests of that name other
                # classes inherit (transitions 0.9.3: 6 test_binary_stream)
                name, setup = _configured(ctx.profile.name)
                test = family(bad[0].unfinished[-1]).rpartition("::")[2]
                detail += (f". To fix: {setup} leave out the tests of that name: "
                           f"profiles.{name}.pytest_args = [\"-k\", \"not {test}\"]")
            raise EnvironmentFailure(f"the pristine test suite did not run: {bad[0].status} {detail}")
        if baseline.stable:
            save_baseline(path, baseline)
            journal.receipt("baseline", path, {"revision": ctx.config.source.revision})
    journal.event("baseline", "done", detail={
        "stable": len(baseline.stable), "flaky": list(baseline.flaky), "failing": len(baseline.failing),
        "order_dependent": list(baseline.order_dependent), "collection_errors": list(baseline.problems)})
    if not baseline.stable:
        if hasattr(ctx.recipe, "ecosystem"):  # another ecosystem's command recipe
            message = ctx.recipe.no_stable_tests(baseline, ctx.profile.name)
        else:
            message = no_stable_tests(baseline, ctx.profile.name, work.pristine, ctx.recipe.summary())
        journal.event("baseline", "failed", failure_class="source_eligibility", detail={"reason": message})
        raise SourceIneligible(message)
    slowest = (baseline.run_seconds or (baseline.seconds,))[0]  # the first run: no coverage
    if limits.timeout_sec is not None:
        return Measured(baseline, limits.timeout_sec, "limits.timeout_sec")
    stall = baseline.longest_phase
    return Measured(baseline, round(TIMEOUT_FLOOR + TIMEOUT_FACTOR * slowest, 1),
                    f"derived: {TIMEOUT_FLOOR:g} s + {TIMEOUT_FACTOR:g} x {slowest:.1f} s "
                    "(the pristine run without coverage); set limits.timeout_sec to override",
                    round(STALL_FLOOR + TIMEOUT_FACTOR * stall, 1) if stall is not None else None)


def _guarded_imports(pristine: Path, rel: str):
    """``(try node, names it binds, top-level modules it imports)`` for every ``try`` of the
    file ``rel`` whose handler catches ``ImportError``; nothing when it cannot be parsed."""
    import ast

    try:
        tree = ast.parse((pristine / rel).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return
    for node in ast.walk(tree):
        types = [h.type for h in getattr(node, "handlers", ()) if h.type is not None]
        caught = {ast.unparse(t) for h in types for t in (h.elts if isinstance(h, ast.Tuple) else [h])}
        if not caught & {"ImportError", "ModuleNotFoundError"}:
            continue
        imports = [stmt for stmt in node.body if isinstance(stmt, ast.Import | ast.ImportFrom)]
        bound = {(a.asname or a.name).split(".")[0] for stmt in imports for a in stmt.names}
        names = [alias.name for stmt in imports if isinstance(stmt, ast.Import) for alias in stmt.names]
        names += [stmt.module for stmt in imports if isinstance(stmt, ast.ImportFrom) and stmt.level == 0]
        yield node, bound, list(dict.fromkeys(name.split(".")[0] for name in names if name))


def _optional_imports(pristine: Path, problem: str) -> tuple[str, list[str]] | None:
    """``(name, modules)`` when ``problem`` is a test file's ``NameError`` for a name that file
    imports inside ``try: … except ImportError`` (mccabe 0.7.0's ``test_mccabe.py`` applies
    hypothesis' ``@settings`` when ``import hypothesmith`` failed): the modules that ``try``
    imports."""
    match = re.match(r"(\S+\.py): E\s+NameError: name '(\w+)' is not defined", problem.strip())
    for _, bound, modules in _guarded_imports(pristine, match.group(1)) if match else ():
        if match.group(2) in bound:
            return match.group(2), modules
    return None


def _exit_without(pristine: Path, problem: str) -> tuple[str, int, list[str]] | None:
    """``(file, line, modules)`` when pytest's internal error came from a module-level line of
    a repository file inside the ``except ImportError`` of a ``try`` importing ``modules``
    (uncertainties 3.2.2's test modules call ``sys.exit()`` when ``import numpy`` fails)."""
    match = re.search(r"\(at (.+\.py):(\d+)\)$", problem.strip())
    parts = Path(match.group(1)).parts if match else ()  # a job folder's path: its longest suffix here
    suffixes = (Path(*parts[i:]) for i in range(1, len(parts)))
    rel = next((suffix.as_posix() for suffix in suffixes if (pristine / suffix).is_file()), "")
    for node, _, modules in _guarded_imports(pristine, rel) if rel else ():
        if modules and any(h.lineno <= int(match.group(2)) <= h.end_lineno for h in node.handlers):
            return rel, int(match.group(2)), modules
    return None


def _configured(profile: str) -> tuple[str, str]:
    """The profile a fix configures (``repo`` for the built-in ``python-pytest``) and the words
    that set it up in a ``--config`` file."""
    profile = profile if profile != "python-pytest" else "repo"
    return profile, (f'put profile = "{profile}" and [profiles.{profile}] base = "python-pytest" in a '
                     "--config file, then")


def no_stable_tests(baseline: Baseline, profile: str, pristine: Path, detected: str) -> str:
    """One message: what happened, the first error, what was detected, what fixes it."""
    counts = f"{len(baseline.failing)} failing or skipped, {len(baseline.flaky)} flaky"
    problem = next(iter(baseline.problems), "")
    profile, setup = _configured(profile)
    if "No module named" in problem:
        dotted = problem.split("No module named", 1)[1].strip().split()[0].strip("'\"")
        missing = dotted.split(".")[0]
        roots = [root for root in (pristine, pristine / "src") if (root / missing).exists()]
        module = dotted.replace(".", "/")
        built = next((path for root in roots for suffix in (".c", ".cpp", ".pyx")
                      if (path := root / f"{module}{suffix}").is_file()), None)
        if built:  # pygeohash 3.5.1: tests import its C extension from the source folder, where none is built
            fix = (f"{setup} install the project editable, which builds its compiled extension {dotted!r} "
                   f"({built.relative_to(pristine).as_posix()}) beside its sources: "
                   f"profiles.{profile}.install = [\"python -m pip install -e .\"] (with the extras and "
                   "requirements it detected)")
        elif roots and not any((root / m).exists() for root in roots for m in (module, f"{module}.py")):
            fix = (f"use a source that ships {dotted!r}: {missing!r} is here, {dotted!r} is not (a "
                   "package's sdist often leaves out its tests' helper modules; its repository keeps them)")
        elif roots:
            fix = f"{setup} set profiles.{profile}.pythonpath to the folder that holds {missing!r}"
        else:
            fix = (f"{setup} install the package that provides {missing!r}: profiles.{profile}.install = "
                   f"[\"python -m pip install . <package>\"]")
    elif optional := _optional_imports(pristine, problem):
        name, modules = optional
        fix = (f"{setup} install {', '.join(modules)}: a test file imports them inside try/except "
               f"ImportError and uses {name!r} from there anyway: profiles.{profile}.install = "
               f"[\"python -m pip install . {' '.join(modules)}\"]")
    elif plugin := re.search(r'Error while loading plugin "([^"]+)"', problem):
        # commonmark 0.9.1: its tests_require pins hypothesis 3.55, whose pytest plugin cannot import on 3.11
        fix = (f"{setup} install a version of the package providing the pytest plugin {plugin.group(1)!r} "
               f"that loads on this Python (profiles.{profile}.install): the one installed fails at "
               "import (see the first error)")
    elif "fixture" in problem and "not found" in problem:
        fix = f"{setup} install the pytest plugin that provides it (profiles.{profile}.install)"
    elif "'yield' keyword is allowed in fixtures, but not in tests" in problem:
        fix = ("make the suite one pytest can run: its tests yield their cases (nose-style generator "
               "tests, markdown2 2.5.0), which pytest no longer runs; written as parametrized tests they can")
    elif "because it has a __init__ constructor" in problem:
        fix = ("make the suite one pytest can run: its test class takes arguments in __init__, so pytest "
               "collects none of it (pyfiglet 1.0.2's pyfiglet/test.py is a script run by hand, not a suite)")
    elif exited := _exit_without(pristine, problem):
        rel, line, modules = exited
        fix = (f"{setup} install {', '.join(modules)}: {rel} ends the run at line {line} when importing "
               f"them fails: profiles.{profile}.install = [\"python -m pip install . {' '.join(modules)}\"]")
    elif "internal error" in problem:
        fix = ("make the suite one pytest can run: a module it imported ended the run (a test module "
               "that calls unittest.main() or sys.exit() when imported cannot run under pytest)")
    elif not baseline.stable and not baseline.failing and not baseline.flaky and not (
            has_test_files(pristine) or unittest_named_files(pristine)):
        fix = ("use a source that ships its tests: this one has no test_*.py, *_test.py, test*.py or "
               "Test*.py file (a package's sdist often leaves them out; its repository keeps them)")
    elif not baseline.stable and not baseline.failing and not baseline.flaky and problem.strip():
        fix = (f"{setup} make the test files importable: install what they import "
               f"(profiles.{profile}.install) or set profiles.{profile}.pythonpath (see the first error)")
    elif not baseline.stable and not baseline.failing and not baseline.flaky:
        fix = f"{setup} point profiles.{profile}.test_paths at the tests (no test was collected)"
    else:
        fix = f"{setup} adjust profiles.{profile}.install / pythonpath / pytest_args"
    first = f" First error: {problem.strip()}." if problem.strip() else ""
    if not first and baseline.first_failure:  # commonmark 0.9.1: its one doctest fails, said nowhere
        first = f" The first failing test: {baseline.first_failure.rstrip('.')}."
    return (f"the repository has no stable passing tests ({counts}), so nothing can validate a bug."
            f"{first} Detected: {detected}. To fix: {fix}.")
