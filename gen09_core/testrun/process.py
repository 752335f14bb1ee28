"""The process runner: one command in its own session, with a timeout that kills the
whole process group, an address-space limit, and its CPU time measured.

Every test subprocess gen09 starts (mutate's validation, ``gen09 verify``, ``gen09 ab``)
runs through :func:`run_limited` with the environment :func:`clean_env` gives, so a
timed-out run never leaves a process behind and no variable of gen09's own environment
steers a repository's tests.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from attrs import frozen

from gen09_core.testrun.gen09_guard import kill_sessions

_DROP_PREFIXES = ("PYTEST_", "COV_CORE", "COVERAGE_", "GEN09_")
_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_live: set[int] = set()  # process groups gen09 started and has not yet ended
launching = threading.RLock()  # held from starting a process group to noting it (see children_end_with_us)
_guardian: int | None = None  # the writing end of the pipe to gen09_guard.py
_DROP = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH")


_PR_SET_PDEATHSIG = 1
_prctl = getattr(ctypes.CDLL(None), "prctl", None) if os.uname().sysname == "Linux" else None


def _dies_with(parent: int):
    """The ``preexec_fn`` that makes a started command die (SIGKILL) when the thread that
    started it ends — it waits for the command, so: when gen09 dies, even of a SIGKILL it
    cannot catch — or at once when gen09 died before that was set up; None off Linux."""
    if _prctl is None:
        return None

    def preexec() -> None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)
    return preexec


@frozen
class Finished:
    """How a command ended: ``ok`` (it exited by itself), ``timeout`` (killed: ``limit``
    says which limit) or ``error`` (it could not start); its exit code, wall and CPU
    seconds, and the tail of its output."""

    status: str
    returncode: int | None
    seconds: float
    cpu_seconds: float
    output: str = ""
    limit: str = ""
    phase_seconds: float = 0.0  # killed at a limit while a test phase ran: how long it had run


class Reached:
    """What ``limits`` found: the limit reached (``reason``, "" while none) and, when that
    happened while a test phase ran, the wall seconds since the phase before it ended
    (``phase_seconds``: what the killed phase had run; at most ``STALL_POLL`` short when
    the record's lines carry no time they were written)."""

    def __init__(self) -> None:
        self.reason, self.phase_seconds = "", 0.0

    def __bool__(self) -> bool:
        return bool(self.reason)


STALL_POLL = 0.2  # seconds between two looks at a run's record
STALL_WALL_FACTOR = 3  # a run that uses no CPU (asleep, blocked) stalls after this many times stall_sec
_BEGAN, _ENDED = b'{"kind": "collected"', (b'{"kind": "ran"', b'{"kind": "finish"')
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
CPU_TICK = 1 / _TICKS  # how finely /proc counts CPU time


def cpu_seconds(pid: int) -> float | None:
    """The CPU seconds the process ``pid`` has used so far (its threads included, not its
    children), from Linux's ``/proc``; None where that cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()  # after the command name, which may hold spaces
        return (int(fields[11]) + int(fields[12])) / _TICKS  # utime and stime, in clock ticks
    except (OSError, ValueError, IndexError):
        return None


def _stamp(lines: list, last: float, pid: int | None) -> tuple[float, float | None]:
    """When the newest of the record's new ``lines`` was written — the system's monotonic
    time and the writer's CPU seconds it carries (``at``: time, CPU, the writer's pid;
    written by gen09's plugin) — else now: the stall limit counts from the moment a phase
    ended, not from when it was read. A time outside ``last``..now is not trusted, and then
    neither is its CPU time (both marks are taken now, so they agree), nor a CPU time another
    process than ``pid`` wrote (a wrapper's pid is watched, a child writes)."""
    now = time.monotonic()
    cpu = cpu_seconds(pid) if pid is not None else None
    try:
        written, used, writer = json.loads(lines[-1])["at"] if lines else (now, cpu, pid)
    except (ValueError, KeyError, TypeError):
        return now, cpu
    if not isinstance(written, float) or not last <= written <= now:
        return now, cpu
    if cpu is not None and isinstance(used, float) and writer == pid:
        cpu = used
    return written, cpu


@contextlib.contextmanager
def limits(kill, timeout_sec: float, progress: Path | None = None, stall_sec: float | None = None,
           pid: int | None = None, since: float | None = None):
    """While the block runs, ``kill()`` once a limit is reached: ``timeout_sec`` seconds,
    or, with ``stall_sec``, a stall between gen09's plugin noting in the run's record
    ``progress`` that the tests began (``collected``) and that they ended (``ran``/
    ``finish``): no new line while the test process ``pid`` uses ``stall_sec`` seconds of
    CPU (a busy loop), or for ``STALL_WALL_FACTOR`` times ``stall_sec`` wall seconds
    (asleep or blocked; the only rule where ``pid``'s CPU cannot be read). Start-up and
    collection, however slow, never count as a stall; CPU time, unlike wall time, does not
    grow while a busy machine makes the run wait. The record is read every ``STALL_POLL``
    seconds and again when the CPU rule comes due, so a busy loop is killed within a clock
    tick of its limit, not up to a poll later; both rules count from when the last line was
    written (its ``at`` stamp, see ``_stamp``), not from when it was read; a stamp from
    ``since`` on (the monotonic time the run was asked for, when it may write before the
    block begins: a forked child) is trusted, an earlier one is not. Yields a ``Reached``."""
    reached = Reached()
    done = threading.Event()

    def watch() -> None:
        start = time.monotonic()
        last = start if since is None else min(since, start)
        offset, active, pending, cpu_mark = 0, False, b"", None
        while True:
            if stall_sec and progress is not None:
                with contextlib.suppress(OSError), open(progress, "rb") as record:
                    record.seek(offset)
                    new = record.read()
                    offset += len(new)
                    if new:
                        lines = (pending + new).split(b"\n")
                        pending = lines.pop()
                        last, cpu_mark = _stamp(lines, last, pid)
                        for line in lines:
                            if line.startswith(_BEGAN):
                                active = True
                            elif line.startswith(_ENDED):
                                active = False
            now = time.monotonic()
            cpu = cpu_seconds(pid) if active and pid is not None else None
            if now - start >= timeout_sec:
                reached.reason = f"over {timeout_sec:g}s"
            elif active and now - last >= STALL_WALL_FACTOR * stall_sec:
                reached.reason = f"no test phase ended for {STALL_WALL_FACTOR * stall_sec:g}s"
            elif cpu is not None and cpu_mark is not None and cpu - cpu_mark >= stall_sec:
                reached.reason = f"no test phase ended in {stall_sec:g}s of CPU time"
            if reached:
                reached.phase_seconds = now - last if active else 0.0
                break
            wait = timeout_sec - (now - start)
            if stall_sec:
                wait = min(wait, STALL_POLL)
                if cpu is not None and cpu_mark is not None:  # look again when the CPU limit comes due
                    wait = min(wait, stall_sec - (cpu - cpu_mark) + CPU_TICK)
            if done.wait(wait):
                return
        kill()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield reached
    finally:
        done.set()
        watcher.join()


def clean_env(venv: str | Path | None = None, **extra: str) -> dict:
    """The environment of a test subprocess: this process's environment without pytest,
    coverage, gen09 and Python-path variables; bytecode writing off, hash seed fixed;
    ``venv``'s ``bin`` first on ``PATH`` when given; then ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROP_PREFIXES) and k not in _DROP}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONHASHSEED"] = "0"
    if venv is not None:
        env["VIRTUAL_ENV"] = str(venv)
        env["PATH"] = f"{Path(venv) / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.update({str(k): str(v) for k, v in extra.items()})
    return env


def _tell_guardian(line: str) -> None:
    """Write ``line`` to gen09's guardian (``gen09_guard.py``), started with the first session:
    it ends what is left of gen09's sessions when gen09 ends, even of a SIGKILL."""
    global _guardian
    if _guardian is None:
        read, _guardian = os.pipe()  # neither end is inherited by what gen09 starts later
        try:
            os.posix_spawn(sys.executable, [sys.executable, str(Path(__file__).with_name("gen09_guard.py"))],
                           os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, read, 0)], setsid=True)
        except (OSError, NotImplementedError):  # no setsid for posix_spawn on this platform
            pass  # no guardian: a signal to gen09 still ends its sessions, a SIGKILL their leaders
        finally:
            os.close(read)
    with contextlib.suppress(OSError):  # a guardian that is gone (or never started) is not gen09's failure
        os.write(_guardian, line.encode())


def started(pid: int) -> None:
    """Note a session gen09 started (its leader's pid), so that a signal to gen09, or gen09's
    end however it comes, ends it."""
    _live.add(pid)
    _tell_guardian(f"+{pid}\n")


def ended(pid: int) -> None:
    """Forget a session that has been ended."""
    _live.discard(pid)
    _tell_guardian(f"-{pid}\n")


@contextlib.contextmanager
def children_end_with_us():
    """While the block runs, SIGTERM, SIGINT or SIGHUP to gen09 first kills every process
    group it started (test runs live in sessions of their own, so they would not get the
    signal and would keep running) and every other process of their sessions (the forked
    children of warm workers and fork servers, which make groups of their own), then takes
    the signal's default action. Outside the
    main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        with launching:  # a group another thread is starting right now is noted first, then ended
            kill_sessions(set(_live))  # a warm worker's or fork server's child has a group of its own
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    previous = {s: signal.signal(s, handler) for s in _SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def tail(text: str, lines: int = 15, chars: int = 2000) -> str:
    """The last ``lines`` lines of ``text``, at most ``chars`` characters."""
    return "\n".join(text.rstrip().splitlines()[-lines:])[-chars:]


def start_session(cmd: list, dies_with_us: bool = True, **popen) -> subprocess.Popen:
    """``subprocess.Popen(cmd, **popen)`` (no standard input) in a session of its own that gen09
    notes (``started``) before a signal handler can look, so that a signal to gen09, or its end
    however it comes, ends it; with ``dies_with_us`` it also dies with the thread that started
    it (``PR_SET_PDEATHSIG``). Raises ``OSError`` when ``cmd`` cannot start."""
    with launching:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=_dies_with(os.getpid()) if dies_with_us else None, **popen)
        started(proc.pid)
    return proc


def run_in_session(cmd: list, cwd=None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True)`` in a session of its own that gen09
    ends with itself, as it does its test runs: a signal to gen09, or its end however it comes,
    ends it and all it started (a venv's ``pip install`` and the builds it runs, a profile's
    install commands), and nothing it started outlives it. Raises ``OSError`` when ``cmd``
    cannot start."""
    proc = start_session(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate()
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        ended(proc.pid)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def run_limited(cmd: list, cwd, env: dict, timeout_sec: float, output: Path,
                memory_mb: int | None = None, progress: Path | None = None,
                stall_sec: float | None = None) -> Finished:
    """Run ``cmd`` in a new session with stdout and stderr into the file ``output``.
    At a limit (``limits``: ``timeout_sec``, or ``stall_sec`` without progress in the
    record ``progress``) the whole process group is killed; when the command ends, any
    process it left in its group is killed too."""
    start, asked = time.perf_counter(), time.monotonic()
    try:
        with open(output, "wb") as sink:
            proc = start_session(cmd, cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT)
    except OSError as exc:
        return Finished("error", None, time.perf_counter() - start, 0.0, f"could not start {cmd[0]}: {exc}")
    if memory_mb:
        limit = memory_mb * 1024 * 1024
        with contextlib.suppress(OSError, ValueError):
            resource.prlimit(proc.pid, resource.RLIMIT_AS, (limit, limit))

    def kill_group():
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    try:
        with limits(kill_group, timeout_sec, progress, stall_sec, proc.pid, asked) as reached:
            _, status, usage = os.wait4(proc.pid, 0)  # wait4: the command's own CPU time too
    finally:
        kill_group()  # nothing the command started outlives it
        ended(proc.pid)
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = Path(output).read_bytes().decode("utf-8", "replace")
    return Finished("timeout" if reached else "ok", proc.returncode, time.perf_counter() - start,
                    usage.ru_utime + usage.ru_stime, tail(text), reached.reason, reached.phase_seconds)
