"""The one test-outcome reader: per-test outcomes from gen09's pytest record.

gen09's pytest plugin (``gen09_pytest``) writes one JSON line per test phase, keyed by the
node id exactly as pytest reports it; this module alone decides what each test's outcome
is. mutate's validation, ``gen09 verify``, ``gen09 ab`` and every bundle's grader read
outcomes through it (the bundle ships this file as ``tests/gen09_outcomes.py``), so an
outcome means the same thing everywhere. Standard library only.

How a test's outcome is decided, from its phases:

- ``error``: setup failed, or teardown failed after a passing call;
- ``failed``: the call failed, or **any subtest failed** (``subtests`` fixture,
  ``unittest.TestCase.subTest``) even when the call itself passed; a strict ``xfail``
  that passed is reported by pytest as failed;
- ``xfailed``: an ``xfail`` test that failed as expected; ``xpassed``: a non-strict
  ``xfail`` test that passed;
- ``skipped``: skipped in setup or call;
- ``passed``: setup, call and teardown passed and no subtest failed.

Only ``passed`` counts as passing: an xfailed, xpassed or skipped test is never a
PASS_TO_PASS or FAIL_TO_PASS test, and a test that was asked for but never reported is
``missing``. A test reported several times (reruns) keeps its last run.

Command line (the bundle's grader)::

    python gen09_outcomes.py grade OUTCOMES.jsonl EXPECTED.json   # prints 1 or 0
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field

PASSED = "passed"
MISSING = "missing"


@dataclass(frozen=True)
class TestResult:
    """One test's decided outcome; for failures the phase, message and traceback
    ``[(path, line)]``."""

    __test__ = False  # a data class, not a pytest test class

    outcome: str
    phase: str = ""
    message: str = ""
    trace: tuple = ()


@dataclass(frozen=True)
class Record:
    """Everything one run recorded: per-test results, collection errors, whether the
    session finished (and its exit status) and whether it stopped early on purpose."""

    tests: dict = field(default_factory=dict)
    collect_errors: tuple = ()
    finished: bool = False
    exitstatus: int | None = None
    stopped_early: bool = False
    internal_error: str = ""
    duration: float = 0.0  # seconds of every recorded phase, summed
    longest: float = 0.0  # seconds of the longest recorded phase
    files: dict = field(default_factory=dict)  # test id -> its file, where the runner's report names one
    marked_flaky: tuple = ()  # the tests the repository marks ``flaky`` (its rerun plugin is not loaded)
    internal_by: str = "pytest"  # what raised ``internal_error``: pytest, or another runner's missing report
    unfinished: tuple = ()  # tests whose run began and never ended (what a killed run was running)


    def outcome(self, test_id: str) -> str:
        """The outcome of ``test_id`` (``missing`` when it was never reported)."""
        result = self.tests.get(test_id)
        return result.outcome if result else MISSING

    def outcomes(self) -> dict:
        """``{test id: outcome}`` for every reported test."""
        return {test_id: result.outcome for test_id, result in self.tests.items()}

    def passed(self) -> set:
        """The ids of the tests that passed."""
        return {test_id for test_id, result in self.tests.items() if result.outcome == PASSED}

    def first_problem(self) -> str:
        """The first collection or internal error, as one short line (empty when none)."""
        if self.internal_error:  # with the module-level line that raised it, when one did
            frames = re.findall(r'File "([^"]+)", line (\d+), in <module>', self.internal_error)
            at = f" (at {frames[-1][0]}:{frames[-1][1]})" if frames else ""
            said = last_line(self.internal_error) + at
            return f"pytest internal error: {said}" if self.internal_by == "pytest" else said
        for test_id, message in self.collect_errors:
            return f"{test_id or '(session)'}: {last_line(message)}"
        return ""


def last_line(text: str) -> str:
    """The last non-empty line of ``text`` (where Python puts the exception)."""
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[-1] if lines else ""


_PASSED_CALL = TestResult(PASSED, "call")  # shared: most tests of a large suite pass
_KEPT = ("when", "outcome", "xfail", "subtest", "message", "trace")  # what ``_decide`` reads of a phase


def _decide(phases: list) -> TestResult:
    setup = next((p for p in phases if p["when"] == "setup" and not p.get("subtest")), None)
    call = next((p for p in phases if p["when"] == "call" and not p.get("subtest")), None)
    teardown = next((p for p in phases if p["when"] == "teardown" and not p.get("subtest")), None)
    failed_sub = next((p for p in phases if p.get("subtest") and p["outcome"] == "failed"), None)
    if setup is not None and setup["outcome"] == "failed":
        return _failure("error", setup)
    if setup is not None and setup["outcome"] == "skipped":
        return TestResult("xfailed" if setup.get("xfail") else "skipped", "setup")
    if call is None:
        return TestResult(MISSING)
    if call["outcome"] == "failed":
        return _failure("failed", call)
    if failed_sub is not None:
        return _failure("failed", failed_sub)
    if call["outcome"] == "skipped":
        return TestResult("xfailed" if call.get("xfail") else "skipped", "call")
    if teardown is not None and teardown["outcome"] == "failed":
        return _failure("error", teardown)
    return TestResult("xpassed", "call") if call.get("xfail") else _PASSED_CALL


def _failure(outcome: str, phase: dict) -> TestResult:
    trace = tuple((str(path), line) for path, line in phase.get("trace") or ())
    return TestResult(outcome, phase["when"], str(phase.get("message", "")), trace)


def read(path) -> Record:
    """Read a record written by gen09's pytest plugin; an absent file is an empty,
    unfinished record, and a torn last line (a killed run) is ignored. Read line by line,
    each test decided at its teardown: a run of tens of thousands of tests never has more
    than one test's phases in memory."""
    try:
        handle = open(path, encoding="utf-8")  # noqa: SIM115 - closed by the with below
    except OSError:
        return Record()
    tests: dict = {}  # test id -> its outcome, or None while its run is open (first reported first)
    running: dict = {}  # test id -> the phases of its run so far (until its teardown)
    files: dict = {}
    marked: dict = {}
    collect_errors, finished, exitstatus, stopped = [], False, None, False
    internal, internal_by = "", "pytest"
    duration = longest = 0.0
    with handle:
        for line in handle:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            kind = item.get("kind")
            if kind == "phase":
                test_id, own = item["id"], not item.get("subtest")
                seconds = float(item.get("duration") or 0.0)
                duration, longest = duration + seconds, max(longest, seconds)
                if item["when"] == "setup" and own:
                    running[test_id] = []  # a rerun starts over
                tests.setdefault(test_id, None)
                running.setdefault(test_id, []).append({k: item[k] for k in _KEPT if k in item})
                if item["when"] == "teardown" and own:
                    tests[test_id] = _decide(running.pop(test_id))
                if item.get("file"):
                    files[test_id] = item["file"]
                if item.get("marked_flaky"):
                    marked[test_id] = True
            elif kind == "collect_error":
                collect_errors.append((item.get("id", ""), item.get("message", "")))
            elif kind == "finish":
                finished, exitstatus = True, item.get("exitstatus")
            elif kind == "stopped_early":
                stopped = True
            elif kind == "internal_error":
                internal, internal_by = item.get("message", ""), item.get("by", "pytest")
    for test_id, phases in running.items():  # no teardown: a killed run's last test
        tests[test_id] = _decide(phases)
    unfinished = tuple(running)
    tests = {test_id: result for test_id, result in tests.items() if result and result.outcome != MISSING}
    return Record(tests, tuple(collect_errors), finished, exitstatus, stopped, internal, round(duration, 6),
                  round(longest, 6), {test_id: files[test_id] for test_id in tests if test_id in files},
                  tuple(marked), internal_by, unfinished)


def grade(record: Record, expected) -> tuple[int, list]:
    """Reward 1 when every expected test passed, else 0, with the ids that did not
    pass as ``[(id, outcome)]``."""
    bad = [(test_id, record.outcome(test_id)) for test_id in sorted(expected)
           if record.outcome(test_id) != PASSED]
    return (0 if bad or not expected else 1), bad


def main(argv: list) -> int:
    """``grade OUTCOMES EXPECTED``: print the reward; explain a 0 on stderr."""
    if len(argv) != 3 or argv[0] != "grade":
        print("usage: gen09_outcomes.py grade OUTCOMES.jsonl EXPECTED.json", file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as handle:
        wanted = json.load(handle)
    expected = set(wanted["FAIL_TO_PASS"]) | set(wanted["PASS_TO_PASS"])
    record = read(argv[1])
    reward, bad = grade(record, expected)
    print(reward)
    if bad:
        problem = record.first_problem()
        shown = ", ".join(f"{test_id} ({outcome})" for test_id, outcome in bad[:5])
        print(f"{len(bad)} of {len(expected)} expected tests did not pass: {shown}"
              + (f"; {problem}" if problem else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
