"""The stall limit on real processes: once a run's tests began, a run in which no test phase
ends while its test process uses ``stall_sec`` CPU seconds, or for three times that in wall
seconds, is killed as a timeout (a hung mutant costs that, not the whole timeout), on every
runner; start-up and collection never count as a stall, and a run that keeps ending phases,
or waits without using CPU for less than the wall limit, is never killed by it."""

import json
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from gen09_core.mutate.baseline import derive_baseline
from gen09_core.testrun import process
from gen09_core.testrun.jobs import TestJob, TestRun, run_job
from gen09_core.testrun.process import cpu_seconds, limits
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
STALLED = "no test phase ended in 1s of CPU time"  # a busy loop: the CPU rule


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
        # the tests' time counts the killed phase up to the kill: it used 1 s of CPU, so >= 1 s of wall
        assert run.test_seconds >= 1.0, run
    after = runner(_job(repo, tmp_path, "after", LIB.replace("a + b", "a - b")))  # the worker serves on
    assert after.runner == "warm" and after.outcomes[IDS[0]] == "failed" and after.outcomes[IDS[1]] == "passed"


def test_slow_collection_is_not_a_stall(project):
    repo, env, runner, tmp_path = project
    busy = "end = time.process_time() + 1.2\nwhile time.process_time() < end:\n    pass\n"
    # more CPU than stall_sec and more wall time than 3 x stall_sec, all before the tests begin
    (repo / "tests" / "conftest.py").write_text(f"import time\n\n{busy}time.sleep(2.0)\n")
    slow = _job(repo, tmp_path, "slow", LIB.replace("a + b", "a - b"))
    fresh = run_job(env, slow)
    prefork = runner(_job(repo, tmp_path, "prefork", "LIMIT = 1\n" + LIB))
    for run in (fresh, prefork):
        assert run.status == "ok" and run.outcomes, run
    assert fresh.outcomes[IDS[0]] == "failed" and prefork.outcomes == dict.fromkeys(IDS, "passed")


WRITER = textwrap.dedent("""
    import sys, time
    with open(sys.argv[1], "a") as out:
        for line in ['{"kind": "start"}'] + ['{"kind": "collected"}'] * int(sys.argv[2]) + ['{"kind": "phase"}'] * 2:
            out.write(line + "\\n")
            out.flush()
            time.sleep(float(sys.argv[4]))
        out.write('{"kind": "ran"}\\n')
        out.flush()
        time.sleep(float(sys.argv[3]))
""")


@pytest.mark.parametrize("began, between, after_end", [
    (1, 0.8, 0.0),  # a phase every 0.8 s: never 3 s without one, and asleep: no CPU
    (1, 2.2, 0.0),  # 2.2 s asleep between phases: more than stall_sec, less than 3 x stall_sec
    (0, 0.4, 3.5),  # never said the tests began: only the timeout applies
    (1, 0.4, 3.5),  # 3.5 s after the tests ended (pytest's session finish) is not a stall
])
def test_progress_keeps_a_run_alive(tmp_path, began, between, after_end):
    record = tmp_path / "outcomes.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(record), str(began), str(after_end), str(between)])
    with limits(proc.kill, 60, record, 1.0, proc.pid) as got:
        proc.wait()
    assert (got.reason, got.phase_seconds, proc.returncode) == ("", 0.0, 0)


@pytest.mark.parametrize("code, pid, reached, ran", [
    ("import time; time.sleep(60)", True, "no test phase ended for 3s", 3.0),  # asleep: the wall rule
    ("while True: pass", True, "no test phase ended in 1s of CPU time", 1.0),  # busy: the CPU rule, well before 3 s
    ("while True: pass", False, "no test phase ended for 3s", 3.0),  # its CPU unknown: the wall rule only
])
def test_no_new_line_kills_the_run(tmp_path, code, pid, reached, ran):
    record = tmp_path / "outcomes.jsonl"
    record.write_text('{"kind": "start"}\n{"kind": "collected"}\n')
    proc = subprocess.Popen([sys.executable, "-c", code])
    with limits(proc.kill, 60, record, 1.0, proc.pid if pid else None) as got:
        proc.wait()
    assert got.reason == reached and proc.returncode != 0
    assert got.phase_seconds >= ran  # the phase killed had run at least that long (wall >= CPU)


def _busy_and_rarely_read(tmp_path, monkeypatch, text):
    """A record holding ``text`` that the watcher polls only every 600 s, and a watched
    process that is always busy (its CPU seconds grow with the wall clock from ``began``):
    ``(record, began)``."""
    monkeypatch.setattr(process, "STALL_POLL", 600.0)
    began = time.monotonic()
    monkeypatch.setattr(process, "cpu_seconds", lambda pid: time.monotonic() - began)
    record = tmp_path / "outcomes.jsonl"
    record.write_text(text)
    return record, began


def test_a_busy_run_is_killed_when_its_cpu_limit_comes_due_not_at_the_next_poll(tmp_path, monkeypatch):
    # a poll far longer than the timeout: only looking again as the CPU limit comes due kills
    # the run for its CPU; looking every poll would reach the timeout first
    record, _ = _busy_and_rarely_read(tmp_path, monkeypatch, '{"kind": "start"}\n{"kind": "collected"}\n')
    killed = threading.Event()
    with limits(killed.set, 30, record, 0.5, 12345) as got:
        assert killed.wait(60)
    assert got.reason == "no test phase ended in 0.5s of CPU time" and got.phase_seconds >= 0.5


def test_cpu_seconds_reads_a_live_process_and_not_a_gone_one():
    busy = subprocess.Popen([sys.executable, "-c", "import time\nend = time.process_time() + 0.5\n"
                             "while time.process_time() < end: pass\ntime.sleep(60)"])
    try:
        used = None
        for _ in range(100):  # until it has spun its 0.5 s
            used = cpu_seconds(busy.pid)
            if used is not None and used >= 0.5:
                break
            time.sleep(0.05)
        assert used is not None and 0.5 <= used < 5
    finally:
        busy.kill()
        busy.wait()
    assert cpu_seconds(busy.pid) is None


def test_the_stall_limit_comes_from_the_longest_phase_of_the_run_without_coverage():
    # the second pristine run traces coverage, which a mutant's run never does (emoji 2.14.0's
    # longest phase: 127 s under coverage; a hung mutant then ran 505 s)
    first = TestRun("a", "ok", {"t::a": "passed"}, longest_phase=0.25)
    second = TestRun("b", "ok", {"t::a": "passed"}, longest_phase=0.5)
    assert derive_baseline(first, second).longest_phase == 0.25
    assert derive_baseline(TestRun("a", "ok"), TestRun("b", "ok")).longest_phase is None  # nothing measured


def test_the_stall_limit_counts_from_when_the_last_line_was_written_not_read(tmp_path, monkeypatch):
    # the watcher first reads the phase line when the limit counted from its first look comes
    # due (2.5 s): the line's stamp moves the limit to 2.5 s after it was written, not after now
    record, began = _busy_and_rarely_read(tmp_path, monkeypatch, '{"kind": "collected"}\n')
    killed = []
    with limits(lambda: killed.append(time.monotonic()), 60, record, 2.5, 12345) as got:
        time.sleep(0.3)
        written = time.monotonic()
        with open(record, "a") as out:
            out.write(json.dumps({"kind": "phase", "at": [written, written - began, 12345]}) + "\n")
        while not killed:
            time.sleep(0.01)
    assert got.reason == "no test phase ended in 2.5s of CPU time" and got.phase_seconds >= 2.5
    assert killed[0] - written < 4.0  # read when due, at ~2.5 s: counted from then it would end at ~4.7 s


@pytest.mark.parametrize("line, expected", [
    ({"kind": "phase", "at": [5.0, 1.5, 12345]}, (5.0, 1.5)),  # written by the process watched: trusted
    ({"kind": "phase", "at": [5.0, 1.5, 999]}, (5.0, 2.0)),  # another process's CPU: the watched one's
    # not this clock, nor then its CPU time: both marks now, so that they agree
    ({"kind": "phase", "at": [3.0, 1.5, 12345]}, (7.0, 2.0)),  # before the last line
    ({"kind": "phase", "at": [8.0, 1.5, 12345]}, (7.0, 2.0)),  # in the future
    ({"kind": "phase"}, (7.0, 2.0)),  # no stamp (another tool's record): when it was read
])
def test_a_stamp_is_trusted_only_when_it_can_be_right(monkeypatch, line, expected):
    monkeypatch.setattr(process.time, "monotonic", lambda: 7.0)
    monkeypatch.setattr(process, "cpu_seconds", lambda pid: 2.0)
    assert process._stamp([json.dumps(line).encode()], 4.0, 12345) == expected


EARLY = textwrap.dedent("""
    import json, os, sys, time
    with open(sys.argv[1], "a") as out:
        out.write(json.dumps({"kind": "collected", "at": [time.monotonic(), time.process_time(), os.getpid()]}))
        out.write("\\n")
    while True:
        pass
""")


def test_a_line_written_before_the_watch_began_counts_from_when_it_was_written(tmp_path):
    # a forked child can note that its tests began before its parent starts watching it: the
    # CPU it used since then and the wall time since then are counted from the same moment
    record = tmp_path / "outcomes.jsonl"
    asked = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", EARLY, str(record)])
    try:
        while not record.exists() or not record.read_text().endswith("\n"):
            time.sleep(0.01)
        time.sleep(0.5)  # busy, unwatched
        with limits(proc.kill, 60, record, 1.0, proc.pid, asked) as got:
            proc.wait()
    finally:  # a busy loop never outlives the test, whatever failed
        proc.kill()
        proc.wait()
    assert got.reason == STALLED and got.phase_seconds >= 1.0
