"""The process runner on real processes and real signals: a signal to gen09 ends every test
process group it started, and a timeout ends the whole group."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gen09_core.testrun.process import clean_env, run_limited

DRIVER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from gen09_core.mutate.executor import LocalExecutor
    from gen09_core.testrun.process import children_end_with_us, clean_env, run_limited

    folder = Path(sys.argv[1])
    cmd = ["sh", "-c", "sleep 300 & echo $$ $! > pids.tmp && mv pids.tmp pids; wait"]

    @children_end_with_us()
    def main():  # as gen09 mutate, verify and ab do: jobs on the executor's threads
        job = lambda i: run_limited(cmd, folder / str(i), clean_env(), 600, folder / f"out{i}")
        list(LocalExecutor(2).run(job, range(2)))

    main()
""")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie has ended; only its parent's wait is missing


def _wait_for(paths, seconds=120.0):
    deadline = time.monotonic() + seconds
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, "the test processes never started"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_to_gen09_ends_the_test_processes_it_started(tmp_path, signum):
    for i in range(2):
        (tmp_path / str(i)).mkdir()
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path)])
    pid_files = [tmp_path / str(i) / "pids" for i in range(2)]
    _wait_for(pid_files)
    pids = [int(x) for f in pid_files for x in f.read_text().split()]
    assert all(_alive(p) for p in pids)
    driver.send_signal(signum)
    assert driver.wait(timeout=60) == -signum  # then the signal's own default action
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)]


def test_a_timeout_ends_the_whole_group(tmp_path):
    cmd = ["sh", "-c", "sleep 300 & echo $! > child; wait"]
    done = run_limited(cmd, tmp_path, clean_env(), 1.0, tmp_path / "out")
    assert done.status == "timeout"
    child = int((tmp_path / "child").read_text())
    deadline = time.monotonic() + 30
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
    assert os.path.exists(tmp_path / "out")
