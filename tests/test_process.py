"""The process runner on real processes and real signals: a signal to gen09 ends every test
process group it started, and a timeout ends the whole group."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gen09_core.testrun import process
from gen09_core.testrun.process import clean_env, run_limited
from tests.helpers import MUTATE_FIXTURE

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


def test_a_sigkill_to_gen09_ends_the_test_processes_it_started_and_what_they_started(tmp_path):
    # a SIGKILL cannot be caught: the test process dies with the thread that started it, and
    # gen09's guardian ends what it started (before it, each shell's `sleep` ran on)
    for i in range(2):
        (tmp_path / str(i)).mkdir()
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(tmp_path)])
    pid_files = [tmp_path / str(i) / "pids" for i in range(2)]
    _wait_for(pid_files)
    pids = [int(x) for f in pid_files for x in f.read_text().split()]  # each shell and its sleep
    assert all(_alive(p) for p in pids)
    driver.kill()
    assert driver.wait(timeout=60) == -signal.SIGKILL
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)]


def test_the_guardian_leaves_alone_the_sessions_gen09_ended(tmp_path):
    # gen09 ended this session itself and said so: a process that later took it up is not killed
    guardian = subprocess.Popen([sys.executable, str(Path(process.__file__).with_name("gen09_guard.py"))],
                                stdin=subprocess.PIPE)
    kept = subprocess.Popen(["sleep", "300"], start_new_session=True)
    left = subprocess.Popen(["sh", "-c", "sleep 300 & wait"], start_new_session=True)
    try:
        guardian.communicate(f"+{kept.pid}\n+{left.pid}\n-{kept.pid}\n".encode(), timeout=60)
        assert left.wait(timeout=30) == -signal.SIGKILL
        assert kept.poll() is None
    finally:
        for proc in (kept, left):
            proc.kill()
            proc.wait()


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


SERVED_DRIVER = textwrap.dedent("""
    import sys, threading
    from pathlib import Path
    from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job
    from gen09_core.testrun.prefork import ForkServer
    from gen09_core.testrun.process import children_end_with_us
    from gen09_core.testrun.warm import WarmRunner

    root = Path(sys.argv[1])
    repo = root / "repo"
    env = TestEnv(sys.executable, str(install_plugin(root / "plugins", warm=True)))
    mutant = {"lib.py": "def add(a, b):\\n    return b + a\\n"}

    @children_end_with_us()
    def main():
        server, warm = ForkServer(env, root / "server"), WarmRunner(env, repo, root / "warm")
        forked = TestJob("forked", str(repo), str(root / "jobs"), mutant, ("tests/test_hang.py::test_hang",))
        served = TestJob("served", str(repo), str(root / "jobs"), mutant, ("tests/test_hang.py::test_hang",))
        threads = [threading.Thread(target=run_job, args=(env, forked), kwargs={"launch": server.launch}),
                   threading.Thread(target=warm, args=(served,))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    main()
""")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_signal_to_gen09_ends_the_children_of_its_fork_servers_and_warm_workers(tmp_path, signum):
    # pyparsing 3.1.4 by hand: SIGTERM to `gen09 mutate` killed the fork server's group, and its
    # forked pytest (in a process group of its own) ran on, an orphan
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / "tests" / "test_hang.py").write_text(textwrap.dedent(f"""
        import os, time
        import lib

        def test_hang():
            lib.add(1, 2)
            open(os.path.join({str(tmp_path)!r}, f"pid-{{os.getpid()}}"), "w").close()
            time.sleep(300)
    """))
    driver = subprocess.Popen([sys.executable, "-c", SERVED_DRIVER, str(tmp_path)])
    deadline = time.monotonic() + 120
    while len(list(tmp_path.glob("pid-*"))) < 2:
        assert time.monotonic() < deadline and driver.poll() is None, "the test processes never started"
        time.sleep(0.05)
    pids = [int(p.name.split("-")[1]) for p in tmp_path.glob("pid-*")]
    assert all(_alive(p) for p in pids) and os.getpgid(pids[0]) == pids[0]  # a group of its own
    helpers = [int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1]) for p in pids]
    assert driver.pid not in helpers  # forked by the fork server and the warm worker
    driver.send_signal(signum)  # SIGKILL: the helpers see gen09's end of their pipe close
    assert driver.wait(timeout=60) == -signum
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids + helpers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids + helpers if _alive(p)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_the_end_of_gen09_ends_the_environment_build_it_started(tmp_path, signum):
    # a profile's install command (as a venv's pip install and the builds it runs) ran on in
    # gen09's own session after gen09 ended; now it has a session gen09 ends with itself
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    pids = tmp_path / "pids"
    install = f"sleep 300 & echo $$ $! > {pids}.tmp && mv {pids}.tmp {pids}; wait"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"source": {"repo": str(repo)}, "profile": "mine",
                                  "profiles": {"mine": {"base": "python-pytest", "install": [install]}}}))
    gen09 = subprocess.Popen([sys.executable, "-m", "gen09_core", "mutate", "--config", str(config),
                              "--out", str(tmp_path / "out")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for([pids], seconds=300)  # the venv is made first
    shell_and_sleep = [int(x) for x in pids.read_text().split()]
    assert all(_alive(p) for p in shell_and_sleep)
    gen09.send_signal(signum)
    assert gen09.wait(timeout=60) == -signum
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in shell_and_sleep) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in shell_and_sleep if _alive(p)]
