"""Long-lived helper processes that fork a child per job, and the pre-import fork server.

``Served`` is a process gen09 talks to in JSON lines over two pipes, which answers a job with
the pid of the child it forked and, when that child ends, its wait status and CPU time; the
job's timeout kills the child's process group. Both the warm worker (``warm.Worker``) and
the fork server are one.

``ForkServer`` (the server side is ``gen09_prefork.py``) has imported pytest and nothing of
the repository; its child becomes exactly the ``python -m pytest ARGS`` process a fresh job
would start, minus the ~0.15-0.25 s of starting Python and importing pytest. The warm runner
runs every job its workers cannot carry (and whole-suite and coverage runs) through it.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

from gen09_core.testrun.process import Finished, Reached, ended, limits, start_session, tail

SERVER = "gen09_prefork.py"


class ServerDied(Exception):
    """The helper process ended (or stopped answering) in the middle of a job."""


class Unsuited(Exception):
    """The fork server cannot run this job as a new process would (the reason)."""


class Served:
    """A helper process over two pipes (``$GEN09_WARM_IN`` / ``$GEN09_WARM_OUT`` in its
    environment), its output in ``log_path``."""

    proc = None
    cpu_seconds = 0.0  # CPU of the helper processes themselves, known once they end
    children_cpu = 0.0  # CPU of the jobs' children
    phase = ""  # the stage of the run that started it (``WarmRunner.stats`` charges it there)

    def _spawn(self, cmd: list, cwd: Path, env: dict, log_path: Path) -> None:
        to_child, from_gen09 = os.pipe()
        from_child, to_gen09 = os.pipe()
        self.log_path = log_path
        env = {**env, "GEN09_WARM_IN": str(to_child), "GEN09_WARM_OUT": str(to_gen09)}
        with open(log_path, "wb") as log:  # the helper ends itself when gen09's pipe closes
            self.proc = start_session(cmd, dies_with_us=False, cwd=cwd, env=env, stdout=log,
                                      stderr=subprocess.STDOUT, pass_fds=(to_child, to_gen09))
        os.close(to_child)
        os.close(to_gen09)
        self.send = os.fdopen(from_gen09, "w", encoding="utf-8")
        self.recv = os.fdopen(from_child, "rb", buffering=0)  # unbuffered: select() sees all that is unread
        self.pending = b""  # read from the pipe, not yet a whole line

    def _log_tail(self) -> str:
        try:
            return tail(self.log_path.read_text(encoding="utf-8", errors="replace"), 5, 500)
        except OSError:
            return ""

    def _read(self, timeout: float | None = None) -> dict:
        """The helper's next message; ``ServerDied`` when it ended or ``timeout`` passed
        first. Messages that arrived together (a child that ended at once: "started" and
        "done") are kept here, not in a file buffer that ``select()`` cannot see."""
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.recv], [], [], timeout)
            chunk = self.recv.read(65536) if ready else b""
            if not chunk:
                raise ServerDied(self._log_tail())
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)

    def _request(self, message: dict) -> dict:
        self.asked = time.monotonic()  # a child may note its tests began before it is watched
        try:
            self.send.write(json.dumps(message) + "\n")
            self.send.flush()
        except OSError as exc:
            raise ServerDied(str(exc)) from None
        return self._read()

    def _wait_child(self, pid: int, timeout_sec: float, progress: Path | None = None,
                    stall_sec: float | None = None) -> tuple[int, float, Reached]:
        """``(wait status, CPU seconds, the limit that killed it: a process.Reached)`` of the child
        ``pid`` (limits as ``process.limits``); whatever the child left in its process
        group is killed afterwards."""
        def kill():
            for target in (-pid, pid):  # its group, and itself should it not have made one yet
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(target, signal.SIGKILL)

        try:
            with limits(kill, timeout_sec, progress, stall_sec, pid, self.asked) as reached:
                done = self._read()
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # nothing the child started outlives it, nor a helper's death
        self.children_cpu += done.get("cpu", 0.0)
        return done["status"], done.get("cpu", 0.0), reached

    def close(self) -> None:
        """End the helper process (and anything it left)."""
        for handle in (getattr(self, "send", None), getattr(self, "recv", None)):
            with contextlib.suppress(OSError, AttributeError):
                handle.close()
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(self.proc.pid, 0)  # its CPU, its reaped children's included
            self.proc.returncode = os.waitstatus_to_exitcode(status)
            ended(self.proc.pid)
            self.cpu_seconds += usage.ru_utime + usage.ru_stime


class ForkServer(Served):
    """A ``python gen09_prefork.py`` process of the test environment ``env`` (a ``TestEnv``);
    ``launch`` has ``process.run_limited``'s contract for ``python -m pytest`` commands."""

    def __init__(self, env, folder: Path, start_timeout: float = 120.0):
        self.env, self.folder = env, Path(folder).resolve()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.startup_seconds = 0.0
        started_at = time.perf_counter()
        variables = env.process_env(self.folder)
        del variables["PYTHONPATH"]  # each child sets the job's own
        self._spawn([env.python, str(Path(env.plugin_dir) / SERVER)], self.folder, variables,
                    self.folder / "server.log")
        try:
            hello = self._read(start_timeout)
            self.reason = "" if hello.get("kind") == "ready" else "the fork server is not usable"
        except ServerDied as exc:
            self.reason = f"the fork server did not start: {exc}"
        self.startup_seconds = time.perf_counter() - started_at

    def launch(self, cmd: list, cwd, env: dict, timeout_sec: float, output: Path,
               memory_mb: int | None = None, progress: Path | None = None,
               stall_sec: float | None = None) -> Finished:
        """Run the pytest command ``cmd`` in a forked child; ``ServerDied`` when the server
        is gone, ``Unsuited`` when it cannot run the job exactly (the caller then starts a
        fresh process)."""
        if list(cmd[:3]) != [self.env.python, "-m", "pytest"]:
            raise ValueError(f"the fork server runs this environment's pytest only, not {cmd[:3]}")
        start = time.perf_counter()
        answer = self._request({"args": list(cmd[3:]), "cwd": str(cwd), "env": env, "output": str(output),
                                "memory_mb": memory_mb})
        if answer.get("kind") == "fallback":
            raise Unsuited(answer["reason"])
        status, cpu, reached = self._wait_child(answer["pid"], timeout_sec, progress, stall_sec)
        text = Path(output).read_bytes().decode("utf-8", "replace") if Path(output).exists() else ""
        return Finished("timeout" if reached else "ok", os.waitstatus_to_exitcode(status),
                        time.perf_counter() - start, cpu, tail(text), reached.reason, reached.phase_seconds)
