"""The stall limit on real processes: once a run's tests began, a run in which no test phase
ends for ``stall_sec`` is killed as a timeout (a hung mutant costs that, not the whole
timeout), on every runner; start-up and collection never count as a stall, and a run that
keeps ending phases is never killed by it."""

import subprocess
import sys
import textwrap

import pytest

from gen09_core.mutate.baseline import derive_baseline
from gen09_core.testrun.jobs import TestJob, TestRun, run_job
from gen09_core.testrun.process import limits
from gen09_core.testrun.warm import WarmRunner
from tests.helpers import warm_project

LIB = "def add(a, b):\n    return a + b\n\n\ndef spin():\n    return 1\n"
TESTS = textwrap.dedent("""
    import lib


    def test_add():
        assert lib.add(2, 3) == 5


    def test_spin():
        assert lib.spin() == 1
""")
IDS = ("tests/test_it.py::test_add", "tests/test_it.py::test_spin")
HANG = LIB.replace("    return 1\n", "    while True:\n        pass\n")
STALLED = "no test phase ended for 1s"


@pytest.fixture
def project(tmp_path):
    repo, env = warm_project(tmp_path, LIB, TESTS)
    runner = WarmRunner(env, repo, tmp_path / "warm")
    yield repo, env, runner, tmp_path
    runner.close()


def _job(repo, tmp_path, name, text, **kw):
    return TestJob(name, str(repo), str(tmp_path / "jobs"), {"lib.py": text}, IDS, timeout_sec=60,
                   stall_sec=1.0, **kw)


def test_a_hung_mutant_ends_at_the_stall_limit_on_every_runner(project):
    repo, env, runner, tmp_path = project
    fresh = run_job(env, _job(repo, tmp_path, "fresh", HANG))
    warm = runner(_job(repo, tmp_path, "warm", HANG))
    # a change the swap cannot carry: handed back to a child of the fork server
    prefork = runner(_job(repo, tmp_path, "prefork", "LIMIT = 1\n" + HANG))
    assert (fresh.runner, warm.runner) == ("fresh", "warm") and prefork.runner.startswith("prefork: ")
    for run in (fresh, warm, prefork):
        assert (run.status, run.detail) == ("timeout", STALLED), run
    after = runner(_job(repo, tmp_path, "after", LIB.replace("a + b", "a - b")))  # the worker serves on
    assert after.runner == "warm" and after.outcomes[IDS[0]] == "failed" and after.outcomes[IDS[1]] == "passed"


def test_slow_collection_is_not_a_stall(project):
    repo, env, runner, tmp_path = project
    (repo / "tests" / "conftest.py").write_text("import time\n\ntime.sleep(2.5)\n")  # longer than stall_sec
    slow = _job(repo, tmp_path, "slow", LIB.replace("a + b", "a - b"))
    fresh = run_job(env, slow)
    prefork = runner(_job(repo, tmp_path, "prefork", "LIMIT = 1\n" + LIB))
    for run in (fresh, prefork):
        assert run.status == "ok" and run.outcomes, run
    assert fresh.outcomes[IDS[0]] == "failed" and prefork.outcomes == dict.fromkeys(IDS, "passed")


WRITER = textwrap.dedent("""
    import sys, time
    with open(sys.argv[1], "a") as out:
        for line in ['{"kind": "start"}'] + ['{"kind": "collected"}'] * int(sys.argv[2]) + ['{"kind": "phase"}'] * 8:
            out.write(line + "\\n")
            out.flush()
            time.sleep(0.4)
        out.write('{"kind": "ran"}\\n')
        out.flush()
        time.sleep(float(sys.argv[3]))
""")


@pytest.mark.parametrize("began, after_end, reached", [
    (1, 0.0, []),  # a phase every 0.4 s for 3.6 s: never 1 s without one
    (0, 2.0, []),  # never said the tests began: only the timeout applies
    (1, 2.0, []),  # 2 s after the tests ended (pytest's session finish) is not a stall
])
def test_progress_keeps_a_run_alive(tmp_path, began, after_end, reached):
    record = tmp_path / "outcomes.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(record), str(began), str(after_end)])
    with limits(proc.kill, 60, record, 1.0) as got:
        proc.wait()
    assert (got, proc.returncode) == (reached, 0)


def test_no_new_line_for_stall_sec_kills_the_run(tmp_path):
    record = tmp_path / "outcomes.jsonl"
    record.write_text('{"kind": "start"}\n{"kind": "collected"}\n')
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    with limits(proc.kill, 60, record, 1.0) as got:
        proc.wait()
    assert got == ["no test phase ended for 1s"] and proc.returncode != 0


def test_the_stall_limit_comes_from_the_longest_pristine_phase():
    first = TestRun("a", "ok", {"t::a": "passed"}, longest_phase=0.25)
    second = TestRun("b", "ok", {"t::a": "passed"}, longest_phase=0.5)
    assert derive_baseline(first, second).longest_phase == 0.5
    assert derive_baseline(TestRun("a", "ok"), TestRun("b", "ok")).longest_phase is None  # nothing measured
