"""The fork server on real processes: its child is the ``python -m pytest`` process a fresh
job starts (same interpreter state as the test sees it, same exit: atexit handlers, threads
joined), keeps the job's limits, and a server that dies costs only a fresh process."""

import json
import os
import re
import sys
import textwrap

import pytest

from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job
from gen09_core.testrun.prefork import ForkServer, Served
from gen09_core.testrun.warm import WarmRunner

LIB = "def add(a, b):\n    return a + b\n"

PROBE = '''
import atexit, hashlib, json, os, sys, tempfile, threading, time

import lib


def _state():
    return {"cwd": os.getcwd(), "path": sys.path, "argv0": os.path.basename(sys.argv[0]),
            "argv": sys.argv[1:], "env": {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_CURRENT")},
            "tmp": tempfile.gettempdir(), "hash": hash("gen09"), "bytecode": sys.dont_write_bytecode,
            "flags": repr(sys.flags), "executable": sys.executable, "prefix": sys.prefix,
            "lib": lib.__file__, "main": os.path.basename(getattr(sys.modules["__main__"], "__file__", ""))}


def test_state():
    with open(os.path.join(os.environ["TMPDIR"], "..", "state.json"), "w") as out:
        json.dump(_state(), out)


def test_exit_runs_like_an_interpreter_exit():
    target = os.path.join(os.environ["TMPDIR"], "..", "atexit.txt")

    def late():
        time.sleep(0.3)
        with open(target, "a") as out:
            out.write("thread\\n")

    threading.Thread(target=late).start()  # not a daemon: the interpreter waits for it
    atexit.register(lambda: open(target, "a").write("atexit\\n"))


def test_add():
    assert lib.add(2, 3) == 5
'''


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "lib.py").write_text(LIB)
    (root / "tests" / "test_probe.py").write_text(PROBE)
    return root


def _env(tmp_path):
    return TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)))


def _observe(tmp_path, repo, launch=None):
    """``(run, state, exit log)`` of the whole suite run by ``launch`` (None: a new process)."""
    env = _env(tmp_path)
    job = TestJob("probe", str(repo), str(tmp_path / "jobs"), {"lib.py": LIB.replace("a + b", "a - b")},
                  ("tests/test_probe.py::test_add", "tests/test_probe.py::test_exit_runs_like_an_interpreter_exit",
                   "tests/test_probe.py::test_state"))
    captured = {}

    def keep(cmd, cwd, variables, timeout, output, memory_mb, **limits):
        done = (launch or _fresh)(cmd, cwd, variables, timeout, output, memory_mb, **limits)
        meta = output.parent
        captured["state"] = json.loads((meta / "state.json").read_text())
        captured["exit"] = (meta / "atexit.txt").read_text().split()
        captured["output"] = output.read_text()
        return done

    run = run_job(env, job, launch=keep)
    return run, captured["state"], captured["exit"], captured["output"]


def _printed(output):
    """A run's output without what differs between any two runs (timings, object addresses)."""
    return [re.sub(r"0x[0-9a-f]+", "0x", line) for line in output.splitlines() if " in " not in line]


def _fresh(*args, **limits):
    from gen09_core.testrun.process import run_limited

    return run_limited(*args, **limits)


def test_a_child_is_the_process_a_fresh_job_starts(tmp_path, repo):
    server = ForkServer(_env(tmp_path), tmp_path / "server")
    try:
        assert not server.reason, server.reason
        forked, seen_forked, exit_forked, output_forked = _observe(tmp_path, repo, server.launch)
        fresh, seen_fresh, exit_fresh, output_fresh = _observe(tmp_path, repo)
    finally:
        server.close()
    assert forked.outcomes == fresh.outcomes and forked.outcomes["tests/test_probe.py::test_add"] == "failed"
    assert seen_forked["path"] == seen_fresh["path"], (seen_forked["path"], seen_fresh["path"])
    assert seen_forked == seen_fresh  # folder, sys.path, argv, environment, temp dir, hash seed, flags
    assert seen_fresh["lib"].startswith(seen_fresh["cwd"]) and seen_fresh["tmp"].endswith("tmp")
    assert exit_forked == exit_fresh == ["thread", "atexit"]
    assert seen_fresh["main"] == "__main__.py"  # pytest's own, run as ``-m pytest`` runs it
    # what the run printed: no warning of its own (pytest 9.1 deprecates console_main)
    assert _printed(output_forked) == _printed(output_fresh)
    assert server.children_cpu > 0


@pytest.mark.parametrize("body, status", [
    ("    import time\n    time.sleep(60)\n", "timeout"),
    ("    import os\n    os._exit(3)\n", "crash"),
    ("    import ctypes\n    ctypes.string_at(0)\n", "crash"),  # a segfault
    ("    x = bytearray(3 * 1024 ** 3)\n    return a + b\n", "ok"),  # the memory cap: MemoryError
])
def test_a_child_that_misbehaves_ends_only_its_own_job(tmp_path, repo, body, status):
    env = _env(tmp_path)
    server = ForkServer(env, tmp_path / "server")
    try:
        job = TestJob("bad", str(repo), str(tmp_path / "jobs"), {"lib.py": "def add(a, b):\n" + body},
                      ("tests/test_probe.py::test_add",), timeout_sec=3, memory_mb=1024)
        run = run_job(env, job, launch=server.launch)
        assert run.status == status, run
        if status == "ok":
            assert run.outcomes["tests/test_probe.py::test_add"] == "failed"
        again = run_job(env, TestJob("good", str(repo), str(tmp_path / "jobs"), {},
                                     ("tests/test_probe.py::test_add",)), launch=server.launch)
        assert again.outcomes == {"tests/test_probe.py::test_add": "passed"}
    finally:
        server.close()


def test_a_dead_fork_server_costs_a_fresh_process_and_is_replaced(tmp_path, repo):
    runner = WarmRunner(_env(tmp_path), repo, tmp_path / "warm")
    whole = TestJob("whole", str(repo), str(tmp_path / "jobs"), {"lib.py": LIB.replace("a + b", "a * b")})
    try:
        runner.phase = "baseline"  # the first server is the baseline's cost, its replacement not
        first = runner(whole)
        assert first.runner == "prefork: a whole-suite run", first.runner
        (server,) = runner.servers
        os.killpg(server.proc.pid, 9)
        server.proc.wait()
        runner.phase = "mutants"
        second = runner(whole)
        assert second.runner.startswith("fresh: a whole-suite run; the fork server died"), second.runner
        third = runner(whole)
        assert third.runner == "prefork: a whole-suite run"
        assert first.outcomes == second.outcomes == third.outcomes
        assert first.outcomes["tests/test_probe.py::test_add"] == "failed"
    finally:
        runner.close()
    stats = runner.stats()
    assert stats["fork_servers"] == 2 and stats["workers"] == 0
    baseline, replacement = runner.servers
    assert stats["baseline_startup_seconds"] == round(baseline.startup_seconds, 3)
    assert stats["startup_seconds"] == round(replacement.startup_seconds, 3)
    assert stats["baseline_overhead_cpu_seconds"] == round(baseline.cpu_seconds - baseline.children_cpu, 3)
    assert stats["overhead_cpu_seconds"] == round(replacement.cpu_seconds - replacement.children_cpu, 3)


def test_a_server_that_cannot_start_leaves_fresh_processes(tmp_path, repo):
    plugins = install_plugin(tmp_path / "plugins", warm=True)
    (plugins / "gen09_prefork.py").write_text(textwrap.dedent("""
        raise SystemExit("no fork server here")
        """))
    runner = WarmRunner(TestEnv(sys.executable, str(plugins)), repo, tmp_path / "warm")
    try:
        run = runner(TestJob("whole", str(repo), str(tmp_path / "jobs"), {}))
    finally:
        runner.close()
    assert run.runner.startswith("fresh: a whole-suite run; the fork server did not start"), run.runner
    assert "no fork server here" in run.runner
    assert run.outcomes["tests/test_probe.py::test_add"] == "passed"


def test_a_server_that_dies_mid_job_takes_its_child_with_it(tmp_path, repo):
    """The job falls back to a new process, and the orphaned child is killed, not left running."""
    import threading
    import time

    (repo / "tests" / "test_slow.py").write_text(
        "import os, time\n\n\ndef test_slow():\n"
        "    path = os.environ['GEN09_PREFORK_PID_FILE']\n"
        "    if not os.path.exists(path + '.done'):  # the first run only, not the fresh retry\n"
        "        open(path, 'w').write(str(os.getpid()))\n"
        "        time.sleep(60)\n")
    pid_file = tmp_path / "child.pid"
    env = TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True)),
                  env={"GEN09_PREFORK_PID_FILE": str(pid_file)})
    runner = WarmRunner(env, repo, tmp_path / "warm")
    job = TestJob("slow", str(repo), str(tmp_path / "jobs"), {}, ("tests/test_slow.py::test_slow",), timeout_sec=120)

    def kill_server_once_the_child_runs():
        while not (pid_file.exists() and pid_file.read_text()):
            time.sleep(0.05)
        os.killpg(runner.servers[0].proc.pid, 9)
        pid_file.rename(tmp_path / "child.pid.done")

    killer = threading.Thread(target=kill_server_once_the_child_runs)
    killer.start()
    try:
        run = runner(job)
    finally:
        killer.join()
        runner.close()
    assert "the fork server died" in run.runner, run.runner
    assert run.outcomes == {"tests/test_slow.py::test_slow": "passed"}
    child = int((tmp_path / "child.pid.done").read_text())
    for _ in range(100):
        state = _state(child)
        if state in ("", "Z"):
            break
        time.sleep(0.05)
    assert state in ("", "Z"), f"the forked child {child} still runs ({state})"


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


HELPER = '''
import os, sys, time
out = int(os.environ["GEN09_WARM_OUT"])
for part in sys.argv[1:]:
    os.write(out, part.encode())
    time.sleep(0.3)
time.sleep(30)
'''


@pytest.mark.parametrize("parts", [['{"kind": "started"}\n{"kind": "done"}\n'],
                                   ['{"kind": "sta', 'rted"}\n{"kind": "done"}', '\n']])
def test_messages_that_arrive_together_or_in_pieces_are_all_read(tmp_path, parts):
    """A child that ends at once makes its helper answer "started" and "done" in one go; both
    reach gen09 (the second used to wait in a file buffer that select() does not see, and the
    run hung there for good), and so do messages split across writes."""
    helper = Served()
    helper._spawn([sys.executable, "-c", HELPER, *parts], tmp_path, dict(os.environ), tmp_path / "helper.log")
    try:
        assert [helper._read(10)["kind"] for _ in range(2)] == ["started", "done"]
    finally:
        helper.close()


def test_a_job_that_holds_a_module_pytest_imported_runs_in_a_new_process(tmp_path, repo):
    # pluggy's, pygments' or pytest's own repository: a new interpreter imports the job's copy
    # first, while the fork server imported the installed one before any job
    (repo / "py.py").write_text("import _pytest._py.error as error\nimport _pytest._py.path as path\n\nMINE = True\n")
    (repo / "tests" / "test_mine.py").write_text("import py\n\n\ndef test_the_repository_copy():\n    assert py.MINE\n")
    env = _env(tmp_path)
    job = TestJob("mine", str(repo), str(tmp_path / "jobs"), {}, None)  # the whole suite: never on a worker
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        run = runner(job)
    finally:
        runner.close()
    assert run.runner.startswith("fresh: a whole-suite run; the job's folders hold py, which pytest imported"), run.runner
    assert run.outcomes["tests/test_mine.py::test_the_repository_copy"] == "passed"
    assert run_job(env, job).outcomes == run.outcomes
