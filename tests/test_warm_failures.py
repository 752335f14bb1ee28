"""A warm child records every kind of failure exactly as a fresh pytest process does — the
same message and frames — although it skips formatting a traceback nothing in it reads;
and where a repository hook reads reports, the traceback is formatted as in a fresh run."""

import json
import re
import textwrap

import pytest

from gen09_core.testrun.jobs import TestJob, run_job
from gen09_core.testrun.warm import WarmRunner
from tests.helpers import warm_project

LIB = textwrap.dedent('''
    def add(a, b):
        return a + b


    def parse(text):
        try:
            return int(text)
        except ValueError as exc:
            raise RuntimeError(f"not a number: {text!r}") from exc


    def hidden():
        __tracebackhide__ = True
        raise KeyError("hidden")
''')

TESTS = textwrap.dedent('''
    import unittest

    import pytest

    import lib


    @pytest.fixture
    def broken():
        raise OSError("fixture failed")


    @pytest.fixture
    def teardown_fails():
        yield 1
        raise ValueError("teardown failed")


    def test_assert():
        assert lib.add(2, 3) == 6


    def test_raises_in_lib():
        lib.add(None, 1)


    def test_chained():
        lib.parse("x")


    def test_fail_without_trace():
        pytest.fail("plain message", pytrace=False)


    def test_fail_with_trace():
        pytest.fail("traced message")


    def test_setup_error(broken):
        pass


    def test_teardown_error(teardown_fails):
        pass


    def test_missing_fixture(no_such_fixture):
        pass


    def test_all_hidden():
        __tracebackhide__ = True
        lib.hidden()


    def test_group():
        raise ExceptionGroup("many", [ValueError("one"), TypeError("two")])


    class TestCase(unittest.TestCase):
        def test_unittest(self):
            self.assertEqual(lib.add(1, 1), 3)
''')

IDS = tuple(f"tests/test_it.py::{name}" for name in (
    "test_assert", "test_raises_in_lib", "test_chained", "test_fail_without_trace", "test_fail_with_trace",
    "test_setup_error", "test_teardown_error", "test_missing_fixture", "test_all_hidden", "test_group",
    "TestCase::test_unittest"))

# a repository hook that reads the traceback text of every failed report
READS_REPORTS = textwrap.dedent('''
    def pytest_runtest_logreport(report):
        if report.failed and report.when == "call":
            assert report.longreprtext.strip()
''')


def _symptoms(run, tmp_path):
    """``run.failures`` as text, without what differs between any two processes: object
    addresses, and the folder the run's copy of the repository is in."""
    text = re.sub(r"0x[0-9a-f]+", "0x", json.dumps(run.failures, indent=1))
    return re.sub(re.escape(str(tmp_path)) + r"/[^\"']*?/tests/", "<copy>/tests/", text)


@pytest.mark.parametrize("conftest", ["", READS_REPORTS], ids=["nothing-reads-reports", "a-hook-reads-reports"])
def test_a_warm_child_records_failures_as_a_fresh_process_does(tmp_path, conftest):
    repo, env = warm_project(tmp_path, LIB, TESTS)
    if conftest:
        (repo / "tests" / "conftest.py").write_text(conftest)
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        job = TestJob("failing", str(repo), str(tmp_path / "jobs"), {"lib.py": LIB.replace("a + b", "a - b")}, IDS)
        warm, fresh = runner(job), run_job(env, job)
    finally:
        runner.close()
    assert (warm.runner, warm.status, fresh.status) == ("warm", "ok", "ok"), warm.detail
    assert warm.outcomes == fresh.outcomes and len(fresh.failures) == len(IDS), fresh.outcomes
    assert _symptoms(warm, tmp_path) == _symptoms(fresh, tmp_path)
    assert fresh.failures[IDS[0]]["message"].startswith("assert -1 == 6")
    assert fresh.failures[IDS[2]]["message"] == "RuntimeError: not a number: 'x'"


INTERPRETER_IDS = '''
    import pytest

    import lib


    @pytest.mark.parametrize("n", [1], ids=[f"at{id(None)}"])  # the address of None: one per interpreter
    def test_named_by_the_interpreter(n):
        assert lib.add(n, 1) == 2


    def test_plain():
        assert lib.add(2, 3) == 5
'''


def test_a_test_whose_id_depends_on_the_interpreter_is_flaky_in_a_warm_baseline(tmp_path):
    """isodate 0.7.2 parametrizes over a set holding ``None``, whose hash on Python 3.11 is its
    address: every child of one fork server named its tests alike, so the warm baseline's two runs
    agreed and 2 of its 24 tasks named tests that a new interpreter (the fresh runner, a bundle's
    own run) names otherwise. The first baseline run is a new interpreter's: the test is flaky."""
    import functools
    import subprocess
    import sys

    from gen09_core.mutate.baseline import run_baseline
    from gen09_core.mutate.executor import LocalExecutor

    addresses = {subprocess.run([sys.executable, "-c", "print(id(None))"], capture_output=True,
                                text=True).stdout for _ in range(3)}
    if len(addresses) == 1:
        pytest.skip("this machine places None at one address in every interpreter (no ASLR)")
    repo, env = warm_project(tmp_path, LIB, INTERPRETER_IDS)
    warm = WarmRunner(env, repo, tmp_path / "warm")
    try:
        baseline, runs = run_baseline(LocalExecutor(1), warm, str(repo), str(tmp_path / "jobs"), 120, 2048,
                                      first_run_fn=functools.partial(run_job, env))
        warm_only, _ = run_baseline(LocalExecutor(1), warm, str(repo), str(tmp_path / "jobs-warm"), 120, 2048)
    finally:
        warm.close()
    assert runs[0].runner == "fresh" and runs[1].runner.startswith("prefork"), [run.runner for run in runs]
    assert baseline.stable == ("tests/test_it.py::test_plain",), baseline
    assert len(baseline.flaky) == 2 and all("test_named_by_the_interpreter[at" in t for t in baseline.flaky)
    assert len(warm_only.stable) == 2  # what the warm runs alone concluded
