"""The warm runner: one long-lived pytest process per worker that collects the suite once
and forks a child per job (the worker side is ``gen09_warm.py``).

The mechanism, and its limits. A job's mutation reaches the child by swapping code objects:
the mutated file is compiled and each function whose code changed gets the new code on
its live function objects (the file is also written, for subprocesses a test starts, and
restored after the child). Beyond function bodies the worker carries only changes a live
object can show exactly as a new import would: typeguard-instrumented functions
(re-instrumented by typeguard's own transformer), literal defaults and postponed
annotations of undecorated functions, removed methods nothing saw before the fork,
methods reordered in a class (its namespace put in the new order), the closures a function
that ran at import made (when only the functions nested in it changed: a decorator's
wrapper), and each definition of a name defined more than once (its live functions found by
their pristine code). It hands back every other job — other module or class-level changes,
added definitions, changed closures, functions the suite never imported (of a module it
imported: a file nothing came from needs no swap, the child's own import reads it) or whose
own code ran at import, definitions that cannot be told apart — and a worker with threads
running after collection refuses all jobs (``gen09_swap.py`` lists the rules). Coverage
runs, whole-suite runs and multi-file jobs never use it. Each handed-back job runs as a
fresh ``python -m pytest`` process would — forked from a fork server that has imported
pytest and nothing of the repository (``prefork.py``), or, without ``fork`` or when that
server cannot start, in a new process — and the reason is
kept on its ``TestRun.runner`` (``prefork: why`` / ``fresh: why``).

Isolation and limits. The child puts itself in its own process group, caps its address
space, and is killed with its group at the job's timeout; a child that crashes, hangs or
calls ``os._exit`` ends only its own job (status ``crash`` or ``timeout``). What a child
writes into the worker's folder is undone before the next job (every file compared by size
and mtime with the pristine copy); environment and module state die with the child. A
worker that dies is replaced and its job retried once.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import threading
import time
from pathlib import Path

from attrs import evolve

from gen09_core.testrun import outcomes
from gen09_core.testrun.jobs import (
    INFRASTRUCTURE,
    TestEnv,
    TestJob,
    TestRun,
    judge_record,
    ordered_files,
    run_job,
)
from gen09_core.testrun.prefork import ForkServer, Served, ServerDied, Unsuited
from gen09_core.testrun.process import Finished, tail

PLUGIN = "gen09_warm"


def _tree_state(root: Path) -> dict:
    """``{relative path: (size, mtime)}`` of every file under ``root``, and ``{relative path + "/":
    None}`` of every folder (``__pycache__`` left out)."""
    state, prefix = {}, len(str(root)) + 1
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        state.update(dict.fromkeys((os.path.join(folder, name)[prefix:] + "/" for name in dirs), None))
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            state[path[prefix:]] = (info.st_size, info.st_mtime_ns)
    return state


def pytest_command(env: TestEnv):
    """The ``command(folder)`` of a warm worker of the test environment ``env``: its whole
    suite collected in ``folder``, with the warm plugin loaded first (its hook then sees what
    another plugin's import of the repository runs)."""
    def command(folder: Path) -> tuple[list, dict]:
        return ([env.python, "-m", "pytest", "-p", PLUGIN, *env.pytest_options(), f"--rootdir={folder}",
                 *env.test_paths], env.process_env(folder))
    return command


class Worker(Served):
    """One warm pytest process over its own copy of ``source_dir``, started by
    ``command(folder)`` → ``(argv, environment)`` (a pytest run loading ``gen09_warm``)."""

    def __init__(self, command, source_dir: Path, folder: Path, start_timeout: float = 1800.0,
                 import_lines: dict | None = None):
        self.command, self.source, self.folder = command, Path(source_dir), Path(folder).resolve()
        self.start_timeout, self.import_lines = start_timeout, import_lines
        self.reason = ""
        self.startup_seconds = 0.0  # wall time of every start (collection included)
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
        cmd, variables = self.command(self.folder)
        tmp = self.folder.parent / f"{self.folder.name}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        extra = {}
        if self.import_lines is not None:
            ran = self.folder.parent / f"{self.folder.name}.ran.json"
            ran.write_text(json.dumps(self.import_lines), encoding="utf-8")
            extra["GEN09_WARM_RAN"] = str(ran)
        self._spawn(cmd, self.folder, {**variables, "TMPDIR": str(tmp), **extra},
                    self.folder.parent / f"{self.folder.name}.log")
        try:
            hello = self._read(self.start_timeout)
        except ServerDied:
            self.reason = f"the warm worker ended during collection: {self._log_tail()}"
            return
        if hello.get("kind") != "ready":
            self.reason = hello.get("reason", "the warm worker is not usable")

    def run(self, job: TestJob, meta: Path) -> TestRun | str:
        """Run ``job`` in a forked child; the reason (a str) when the worker hands it back."""
        ((path, text),) = job.files.items() or [(None, None)]  # no file: the worker's own copy
        record = meta / "outcomes.jsonl"
        files = ordered_files(job.tests, job.file_order)
        request = {"id": job.job_id, "path": path, "text": text, "select": list(job.tests),
                   "first": list(job.first) if job.first is not None else None, "files": files,
                   "outcomes": str(record), "memory_mb": job.memory_mb, "tmpdir": str(meta / "tmp")}
        start = time.perf_counter()
        answer = self._request(request)
        if answer["kind"] == "fallback":
            return answer["reason"]
        status, cpu, reached = self._wait_child(answer["pid"], job.timeout_sec, record, job.stall_sec)
        self._restore()
        code = os.waitstatus_to_exitcode(status)
        error = outcomes.read(record).internal_error if code else ""  # the child's own, not the log's
        finished = Finished("timeout" if reached else "ok", code, time.perf_counter() - start, cpu,
                            tail(error) if error else self._log_tail(), reached.reason, reached.phase_seconds)
        return evolve(judge_record(job, record, finished), runner="warm")

    def _restore(self) -> None:
        """Undo whatever the child wrote into the worker's folder, new folders too: backports.tarfile
        1.2.0's tests make ``@test_<pid>_tmp…`` folders, the pid is the worker's in every child, and
        one a mutant left made each later child's tests fail with ``IsADirectoryError``."""
        now = _tree_state(self.folder)
        for rel in sorted(now.keys() - self.state.keys(), reverse=True):  # a folder after what it holds
            path = self.folder / rel
            if rel.endswith("/") and not path.is_symlink():
                shutil.rmtree(path)  # with the ``__pycache__`` an import made in it
            else:
                path.unlink()
        for rel, info in self.state.items():
            if info is not None and now.get(rel) != info:
                target = self.folder / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(self.source / rel, target)
                copied = os.lstat(target)
                self.state[rel] = (copied.st_size, copied.st_mtime_ns)


class WarmRunner:
    """A ``run_job``-shaped callable for the executor: each job runs on a warm worker when
    the worker can carry it, else in a child of a fork server, or a new process where there
    is none (the reason is kept in ``TestRun.runner``). Workers and fork servers start on
    first use, one per concurrent caller."""

    def __init__(self, env: TestEnv, source_dir: Path, scratch: Path, start_timeout: float = 1800.0,
                 import_lines: dict | None = None):
        self.env, self.source, self.scratch = env, Path(source_dir), Path(scratch).resolve()
        self.start_timeout, self.import_lines = start_timeout, import_lines
        self.idle: queue.SimpleQueue = queue.SimpleQueue()
        self.idle_servers: queue.SimpleQueue = queue.SimpleQueue()
        self.workers: list[Worker] = []
        self.servers: list[ForkServer] = []
        self.started = 0  # helpers started so far (their folders are numbered by it)
        self.phase = ""  # the caller's stage: helpers started while it is "baseline" are charged to it
        self.lock = threading.Lock()

    def __call__(self, job: TestJob) -> TestRun:
        """Run one job (same contract as ``jobs.run_job``)."""
        reason = self._unsuitable(job)
        if not reason:
            worker = self._take(self.idle, self._new_worker)
            try:
                result = self._attempt(worker, job)
            finally:
                self.idle.put(worker)
            if not isinstance(result, str):
                return result
            reason = result
        return self._fresh(job, reason)

    def _fresh(self, job: TestJob, reason: str) -> TestRun:
        """A job no worker carries: in a child of a fork server (runner ``prefork: reason``),
        else in a new process (``fresh: reason``) — both see the job's files exactly as a
        new interpreter would."""
        if hasattr(os, "fork"):
            server = self._take(self.idle_servers, self._new_server)
            try:
                if not server.reason:
                    return evolve(run_job(self.env, job, launch=server.launch), runner=f"prefork: {reason}")
                reason = f"{reason}; {server.reason}"
            except Unsuited as exc:
                reason = f"{reason}; {exc}"
            except ServerDied as exc:
                server.close()
                server = self._new_server()  # replaced; the job runs in a fresh process instead
                reason = f"{reason}; the fork server died: {exc}"
            finally:
                self.idle_servers.put(server)
        return evolve(run_job(self.env, job), runner=f"fresh: {reason}")

    def _attempt(self, worker: Worker, job: TestJob) -> TestRun | str:
        if worker.reason:
            return worker.reason
        meta = self.scratch / f"{job.job_id}.warm"
        for attempt in (1, 2):
            shutil.rmtree(meta, ignore_errors=True)
            (meta / "tmp").mkdir(parents=True)
            try:
                return worker.run(job, meta)
            except ServerDied as exc:
                worker.close()
                worker._start()  # replaced; the job is retried once
                if attempt == 2 or worker.reason:
                    return TestRun(job.job_id, "crash", runner="warm",
                                   detail=f"{INFRASTRUCTURE}: the warm worker died twice: {exc}")
            finally:
                shutil.rmtree(meta, ignore_errors=True)
        return TestRun(job.job_id, "crash", detail="unreachable", runner="warm")

    @staticmethod
    def _unsuitable(job: TestJob) -> str:
        if not hasattr(os, "fork"):
            return "this platform has no fork()"
        if job.coverage:
            return "a coverage run"
        if job.tests is None:
            return "a whole-suite run"
        if len(job.files) != 1:
            return f"{len(job.files)} changed files"
        return ""

    def _take(self, idle: queue.SimpleQueue, make):
        """An idle helper, or a new one (``make()``) when every one is busy."""
        try:
            return idle.get_nowait()
        except queue.Empty:
            return make()

    def _new_worker(self) -> Worker:
        return self._made(self.workers, lambda n: Worker(pytest_command(self.env), self.source,
                                                         self.scratch / f"warm-{n}", self.start_timeout,
                                                         self.import_lines))

    def _new_server(self) -> ForkServer:
        return self._made(self.servers, lambda n: ForkServer(self.env, self.scratch / f"prefork-{n}"))

    def _made(self, kept: list, make):
        """``make(n)`` with a number no other helper has (helpers start outside the lock)."""
        with self.lock:
            self.started += 1
            number = self.started
        helper = make(number)
        helper.phase = self.phase
        with self.lock:
            kept.append(helper)
        return helper

    def close(self) -> None:
        """End every worker and fork server."""
        for helper in self.workers + self.servers:
            helper.close()

    def stats(self) -> dict:
        """What the workers and fork servers cost beyond their jobs (after ``close``): how
        many started, the wall seconds of starting them (collection included) and their own
        CPU seconds — of the ones started during the baseline stage apart (``baseline_*``:
        the stage that started a helper pays for it; later stages reuse it)."""
        out = {"workers": len(self.workers), "fork_servers": len(self.servers)}
        for prefix, wanted in (("", False), ("baseline_", True)):
            helpers = [h for h in self.workers + self.servers if (h.phase == "baseline") == wanted]
            out[f"{prefix}startup_seconds"] = round(sum(h.startup_seconds for h in helpers), 3)
            own_cpu = sum(h.cpu_seconds - h.children_cpu for h in helpers)
            out[f"{prefix}overhead_cpu_seconds"] = round(own_cpu, 3)
        return out
