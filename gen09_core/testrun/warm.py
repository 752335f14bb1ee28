"""The warm runner: one long-lived pytest process per worker that collects the suite once
and forks a child per job (the worker side is ``gen09_warm.py``).

The mechanism, and its limits. A job's mutation reaches the child by swapping code objects:
the mutated file is compiled and each function whose code changed gets the new code on
its live function objects; the file on disk is never written. That is sound only for
changes inside function bodies of modules the collected suite imported, so the worker
hands back every other job — module or class-level changes (decorators, defaults,
signatures, class bodies), added or removed definitions, changed closures or nested
functions, functions the suite never imported — and a worker with threads running after
collection refuses all jobs. Coverage runs, whole-suite runs, multi-file jobs and platforms
without ``fork`` never use it. Each handed-back job runs in a fresh process like before,
and the reason is kept on its ``TestRun.runner``.

Isolation and limits. The child puts itself in its own process group, caps its address
space, and is killed with its group at the job's timeout; a child that crashes, hangs or
calls ``os._exit`` ends only its own job (status ``crash`` or ``timeout``). What a child
writes into the worker's folder is undone before the next job (every file compared by size
and mtime with the pristine copy); environment and module state die with the child. A
worker that dies is replaced and its job retried once.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

from attrs import evolve

from gen09_core.testrun.jobs import TestEnv, TestJob, TestRun, judge_record, run_job
from gen09_core.testrun.process import Finished, ended, launching, started, tail

PLUGIN = "gen09_warm"


class WorkerDied(Exception):
    """The warm worker process ended (or stopped answering) in the middle of a job."""


def _tree_state(root: Path) -> dict:
    state = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            state[os.path.relpath(path, root)] = (info.st_size, info.st_mtime_ns)
    return state


class Worker:
    """One warm pytest process over its own copy of ``source_dir``."""

    def __init__(self, env: TestEnv, source_dir: Path, folder: Path, start_timeout: float = 1800.0,
                 import_lines: dict | None = None):
        self.env, self.source, self.folder = env, Path(source_dir), Path(folder).resolve()
        self.start_timeout, self.import_lines = start_timeout, import_lines
        self.proc = None
        self.reason = ""
        self.startup_seconds = 0.0  # wall time of every start (collection included)
        self.cpu_seconds = 0.0  # CPU of the worker processes themselves, known once they end
        self.children_cpu = 0.0  # CPU of the jobs' children (also in each TestRun)
        self._start()

    def _start(self) -> None:
        started = time.perf_counter()
        try:
            self._launch()
        finally:
            self.startup_seconds += time.perf_counter() - started

    def _launch(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.copytree(self.source, self.folder, symlinks=True)
        self.state = _tree_state(self.folder)
        to_worker, from_gen09 = os.pipe()
        from_worker, to_gen09 = os.pipe()
        cmd = [self.env.python, "-m", "pytest", *self.env.pytest_options(), "-p", PLUGIN,
               f"--rootdir={self.folder}", *self.env.test_paths]
        tmp = self.folder.parent / f"{self.folder.name}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        extra = {}
        if self.import_lines is not None:
            ran = self.folder.parent / f"{self.folder.name}.ran.json"
            ran.write_text(json.dumps(self.import_lines), encoding="utf-8")
            extra["GEN09_WARM_RAN"] = str(ran)
        env = self.env.process_env(self.folder, GEN09_WARM_IN=str(to_worker), GEN09_WARM_OUT=str(to_gen09),
                                   TMPDIR=str(tmp), **extra)
        self.log_path = self.folder.parent / f"{self.folder.name}.log"
        with open(self.log_path, "wb") as log, launching:
            self.proc = subprocess.Popen(cmd, cwd=self.folder, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, pass_fds=(to_worker, to_gen09),
                                         start_new_session=True)
            started(self.proc.pid)
        os.close(to_worker)
        os.close(to_gen09)
        self.send = os.fdopen(from_gen09, "w", encoding="utf-8")
        self.recv = os.fdopen(from_worker, "r", encoding="utf-8")
        try:
            hello = self._read(self.start_timeout)
        except WorkerDied:
            self.reason = f"the warm worker ended during collection: {self._log_tail()}"
            return
        if hello.get("kind") != "ready":
            self.reason = hello.get("reason", "the warm worker is not usable")

    def _log_tail(self) -> str:
        try:
            return tail(self.log_path.read_text(encoding="utf-8", errors="replace"), 5, 500)
        except OSError:
            return ""

    def _read(self, timeout: float | None = None) -> dict:
        ready, _, _ = select.select([self.recv], [], [], timeout)
        line = self.recv.readline() if ready else ""
        if not line:
            raise WorkerDied(self._log_tail())
        return json.loads(line)

    def run(self, job: TestJob, meta: Path) -> TestRun | str:
        """Run ``job`` in a forked child; the reason (a str) when the worker hands it back."""
        ((path, text),) = job.files.items()
        record = meta / "outcomes.jsonl"
        files = sorted({t.split("::", 1)[0] for t in job.tests})
        request = {"id": job.job_id, "path": path, "text": text, "select": list(job.tests),
                   "first": list(job.first) if job.first is not None else None, "files": files,
                   "outcomes": str(record), "memory_mb": job.memory_mb, "tmpdir": str(meta / "tmp")}
        start = time.perf_counter()
        try:
            self.send.write(json.dumps(request) + "\n")
            self.send.flush()
        except OSError as exc:
            raise WorkerDied(str(exc)) from None
        answer = self._read()
        if answer["kind"] == "fallback":
            return answer["reason"]
        pid, expired = answer["pid"], threading.Event()

        def kill():
            expired.set()
            for target in (-pid, pid):  # its group, and itself should it not have made one yet
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(target, signal.SIGKILL)

        timer = threading.Timer(job.timeout_sec, kill)
        timer.start()
        try:
            done = self._read()
        finally:
            timer.cancel()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # nothing the child started outlives it
        self._restore()
        self.children_cpu += done.get("cpu", 0.0)
        status = done["status"]
        code = os.waitstatus_to_exitcode(status)
        finished = Finished("timeout" if expired.is_set() else "ok", 0 if code == 0 else code,
                            time.perf_counter() - start, done.get("cpu", 0.0), self._log_tail())
        return evolve(judge_record(job, record, finished), runner="warm")

    def _restore(self) -> None:
        """Undo whatever the child wrote into the worker's folder."""
        now = _tree_state(self.folder)
        for rel, info in now.items():
            if self.state.get(rel) != info:
                target = self.folder / rel
                if rel in self.state:
                    shutil.copy2(self.source / rel, target)
                else:
                    target.unlink()
        for rel in self.state.keys() - now.keys():
            (self.folder / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(self.source / rel, self.folder / rel)
        self.state = _tree_state(self.folder)

    def close(self) -> None:
        """End the worker process (and anything it left)."""
        for handle in (self.send, self.recv):
            with contextlib.suppress(OSError):
                handle.close()
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            _, status, usage = os.wait4(self.proc.pid, 0)  # its CPU, its reaped children's included
            self.proc.returncode = os.waitstatus_to_exitcode(status)
            ended(self.proc.pid)
            self.cpu_seconds += usage.ru_utime + usage.ru_stime


class WarmRunner:
    """A ``run_job``-shaped callable for the executor: each job runs on a warm worker when
    the worker can carry it, else in a fresh process (the reason is kept in
    ``TestRun.runner``). Workers start on first use, one per concurrent caller."""

    def __init__(self, env: TestEnv, source_dir: Path, scratch: Path, start_timeout: float = 1800.0,
                 import_lines: dict | None = None):
        self.env, self.source, self.scratch = env, Path(source_dir), Path(scratch).resolve()
        self.start_timeout, self.import_lines = start_timeout, import_lines
        self.idle: queue.SimpleQueue = queue.SimpleQueue()
        self.workers: list[Worker] = []
        self.lock = threading.Lock()

    def __call__(self, job: TestJob) -> TestRun:
        """Run one job (same contract as ``jobs.run_job``)."""
        reason = self._unsuitable(job)
        if reason:
            return evolve(run_job(self.env, job), runner=f"fresh: {reason}")
        worker = self._acquire()
        try:
            result = self._attempt(worker, job)
        finally:
            self.idle.put(worker)
        if isinstance(result, str):
            return evolve(run_job(self.env, job), runner=f"fresh: {result}")
        return result

    def _attempt(self, worker: Worker, job: TestJob) -> TestRun | str:
        if worker.reason:
            return worker.reason
        meta = self.scratch / f"{job.job_id}.warm"
        for attempt in (1, 2):
            shutil.rmtree(meta, ignore_errors=True)
            (meta / "tmp").mkdir(parents=True)
            try:
                return worker.run(job, meta)
            except WorkerDied as exc:
                worker.close()
                worker._start()  # replaced; the job is retried once
                if attempt == 2 or worker.reason:
                    return TestRun(job.job_id, "crash", detail=f"the warm worker died twice: {exc}",
                                   runner="warm")
            finally:
                shutil.rmtree(meta, ignore_errors=True)
        return TestRun(job.job_id, "crash", detail="unreachable", runner="warm")

    @staticmethod
    def _unsuitable(job: TestJob) -> str:
        if not hasattr(os, "fork"):
            return "this platform has no fork()"
        if job.coverage:
            return "coverage runs use a fresh process"
        if job.tests is None:
            return "a whole-suite run"
        if len(job.files) != 1:
            return f"{len(job.files)} changed files"
        return ""

    def _acquire(self) -> Worker:
        try:
            return self.idle.get_nowait()
        except queue.Empty:
            pass
        with self.lock:
            number = len(self.workers)
            worker = Worker(self.env, self.source, self.scratch / f"warm-{number}", self.start_timeout,
                            self.import_lines)
            self.workers.append(worker)
        return worker

    def close(self) -> None:
        """End every worker."""
        for worker in self.workers:
            worker.close()

    def stats(self) -> dict:
        """What the workers cost beyond their jobs (after ``close``): how many started, the
        wall seconds of starting them (collection included) and their own CPU seconds."""
        return {"workers": len(self.workers),
                "startup_seconds": round(sum(w.startup_seconds for w in self.workers), 3),
                "overhead_cpu_seconds": round(sum(w.cpu_seconds - w.children_cpu for w in self.workers), 3)}
