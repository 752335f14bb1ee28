"""Warm verification: the pytest run inside each bundle's own ``tests/test.sh``, served by a
warm worker (``testrun.warm.Worker``) instead of a new interpreter.

``gen09 verify`` and ``gen09 ab`` still run every bundle's ``solution/solve.sh`` and
``tests/test.sh`` in a fresh copy of its snapshot; only the script's interpreter
(``$GEN09_PYTHON``) is a launcher (``gen09_launch.py``) that hands each ``-m pytest`` run to
this service over a Unix socket. The service runs it on a worker that has imported and
collected the repository once — the union of the bundles' test files, in a copy of the
first run's folder, started with that run's own arguments and environment — and forks a
child per run, which takes on the one file the run's folder differs in (the swap of
``gen09_swap``) and runs the run's selected tests (``$GEN09_SELECT``) into its outcome record
(``$GEN09_OUTCOMES``). The script's grader then reads that record as always.

A run is handed back to the real interpreter (a fresh process, exactly as without the
service), with the reason kept per trial, when it is not the verifier's pytest run gen09
writes (no selection or record, arguments not ending in ``files.txt``), the bundle's
``gen09_pytest.py`` is not this gen09's, its folder differs from the worker's in anything
but one Python file's text (files added, removed, several changed), the swap cannot carry
the change, or the warm child did not finish cleanly with an outcome for every selected
test (a crash, a timeout, a test the worker never collected).
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import shutil
import socketserver
import sys
import tempfile
import threading
from pathlib import Path

from gen09_core.testrun import outcomes
from gen09_core.testrun.jobs import TestJob, install_plugin
from gen09_core.testrun.prefork import ServerDied
from gen09_core.testrun.warm import PLUGIN, Worker

SOCKET_VARIABLE = "GEN09_WARM_VERIFY"
_PER_RUN = {"GEN09_OUTCOMES", "GEN09_SELECT", "GEN09_FIRST", "TMPDIR", "GEN09_APP_DIR", "GEN09_TESTS_DIR",
            "GEN09_LOG_DIR", "GEN09_PYTHON", "PWD", "OLDPWD", "SHLVL", "_"}
_APP, _TESTS = "\0app\0", "\0tests\0"  # where a run's own folders stood in its arguments and environment


class Handback(Exception):
    """The run goes to the real interpreter, for this reason."""


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _listing(root: Path) -> dict:
    """``{relative path: (is link, size, mode)}`` of every file under ``root`` but bytecode."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            found[os.path.relpath(path, root)] = (os.path.islink(path), info.st_size, info.st_mode & 0o777)
    return found


def _content(path: Path) -> bytes:
    return os.readlink(path).encode() if path.is_symlink() else path.read_bytes()


def differing_file(app: Path, reference: Path) -> tuple[str, str] | None:
    """``(relative path, text)`` of the one Python file whose text ``app`` differs in from
    ``reference``, None when they are the same; ``Handback`` for any other difference."""
    mine, theirs = _listing(app), _listing(reference)
    if mine.keys() != theirs.keys():
        extra, gone = sorted(mine.keys() - theirs.keys()), sorted(theirs.keys() - mine.keys())
        raise Handback(f"the folder has {len(extra)} file(s) the worker's has not and lacks {len(gone)} "
                       f"(e.g. {(extra + gone)[0]})")
    changed = [rel for rel, info in mine.items()
               if info != theirs[rel] or _content(app / rel) != _content(reference / rel)]
    if not changed:
        return None
    if len(changed) > 1 or not changed[0].endswith(".py") or mine[changed[0]][0] or \
            mine[changed[0]][2] != theirs[changed[0]][2]:
        raise Handback(f"the folder differs from the worker's in {', '.join(changed[:3])}: only one "
                       "Python file's text is carried")
    try:
        return changed[0], (app / changed[0]).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise Handback(f"{changed[0]} is not UTF-8") from None


class _Group:
    """The idle workers of one kind of run (interpreter, arguments, environment)."""

    def __init__(self, python: str, args: list, env: dict):
        self.python, self.args, self.env = python, args, env
        self.idle: queue.SimpleQueue = queue.SimpleQueue()


class WarmVerify:
    """The warm service for a set of bundles (see the module's docstring); ``launcher(python)``
    is the interpreter to give their ``test.sh``, ``environment()`` the variables that reach
    the service, ``runner_of(record)`` how the pytest run writing ``record`` ran."""

    def __init__(self, bundles, timeout_sec: float = 900.0, start_timeout: float = 1800.0):
        self.timeout_sec, self.start_timeout = timeout_sec, start_timeout
        self.test_files = sorted({f for b in bundles if (Path(b) / "tests" / "files.txt").is_file()
                                  for f in _lines(Path(b) / "tests" / "files.txt")})
        self.scratch = Path(tempfile.mkdtemp(prefix="gen09-warm-"))  # short: a socket path is ≤ 107 bytes
        self.plugins = install_plugin(self.scratch / "plugins", warm=True)
        self.groups: dict = {}
        self.workers: list[Worker] = []
        self.started = 0  # workers started so far (their folders are numbered by it)
        self.runners: dict[str, str] = {}
        self.lock = threading.Lock()
        self.address = str(self.scratch / "s")
        service = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                answer = service.serve(json.loads(self.rfile.readline()))
                self.wfile.write((json.dumps(answer) + "\n").encode())

        try:
            self.server = socketserver.ThreadingUnixStreamServer(self.address, Handler)
        except OSError:
            shutil.rmtree(self.scratch, ignore_errors=True)
            raise
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="gen09-warm-verify", daemon=True).start()

    def launcher(self, python: str) -> str:
        """An executable that runs as ``python`` but hands pytest runs to this service."""
        path = self.scratch / "launchers" / f"{abs(hash(python)):x}" / "python"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            script = Path(__file__).with_name("gen09_launch.py")
            path.write_text(f"#!/bin/sh\nexec {shlex.quote(python)} -I -S {shlex.quote(str(script))} "
                            f"{shlex.quote(python)} \"$@\"\n", encoding="utf-8")
            path.chmod(0o755)
        return str(path)

    def environment(self) -> dict:
        """The variables a ``test.sh`` run needs to reach this service."""
        return {SOCKET_VARIABLE: self.address}

    def runner_of(self, record: Path) -> str:
        """How the pytest run writing ``record`` ran: ``warm``, ``fresh: <why>``."""
        return self.runners.get(str(record), "fresh: the run never reached the warm service")

    def serve(self, request: dict) -> dict:
        """Answer one launcher: ``ran`` with its exit code and note, or ``fallback``."""
        record = request["env"].get("GEN09_OUTCOMES", "")
        try:
            answer = self._run(request["python"], request["args"], Path(request["cwd"]), request["env"])
            self.runners[record] = "warm"
            return answer
        except Handback as exc:
            self.runners[record] = f"fresh: {exc}"
        except Exception as exc:  # a case not foreseen hands the run back, never loses it
            self.runners[record] = f"fresh: the warm service failed: {type(exc).__name__}: {exc}"
        return {"kind": "fallback"}

    def _run(self, python: str, args: list, app: Path, env: dict) -> dict:
        if not env.get("GEN09_OUTCOMES") or not env.get("GEN09_SELECT"):
            raise Handback("not a gen09 verifier run (no $GEN09_OUTCOMES / $GEN09_SELECT)")
        tests = Path(env["GEN09_SELECT"]).parent
        files, select = _lines(tests / "files.txt"), _lines(Path(env["GEN09_SELECT"]))
        if not files or args[len(args) - len(files):] != files:
            raise Handback("the pytest arguments do not end with the bundle's files.txt")
        if _content(tests / "runner" / "gen09_pytest.py") != _content(self.plugins / "gen09_pytest.py"):
            raise Handback("the bundle's gen09_pytest.py is not this gen09's")

        def general(value: str) -> str:
            return value.replace(str(app), _APP).replace(str(tests), _TESTS)

        kind = (python, tuple(general(a) for a in args[:len(args) - len(files)]),
                tuple(sorted((k, general(v)) for k, v in env.items() if k not in _PER_RUN)))
        with self.lock:
            group = self.groups.setdefault(kind, _Group(python, list(kind[1]), dict(kind[2])))
        try:
            worker = group.idle.get_nowait()
        except queue.Empty:
            worker = self._new_worker(group, app, tests)
        try:
            return self._on(worker, app, files, select, Path(env["GEN09_OUTCOMES"]))
        finally:
            group.idle.put(worker)

    def _new_worker(self, group: _Group, app: Path, tests: Path) -> Worker:
        with self.lock:
            self.started += 1
            number = self.started
        source, own_tests = self.scratch / f"source-{number}", self.scratch / f"tests-{number}"
        shutil.copytree(app, source, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(tests, own_tests, symlinks=True)
        collect = [f for f in self.test_files if (source / f).exists()]

        def command(folder: Path) -> tuple[list, dict]:
            def specific(value: str) -> str:
                return value.replace(_APP, str(folder)).replace(_TESTS, str(own_tests))

            variables = {k: specific(v) for k, v in group.env.items()}
            paths = [variables.get("PYTHONPATH"), str(self.plugins)]
            variables["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
            args = [specific(arg) for arg in group.args]
            at = 2 if args[:2] == ["-m", "pytest"] else len(args)  # first: its hook sees plugins' imports
            return [group.python, *args[:at], "-p", PLUGIN, *args[at:], *collect], variables

        worker = Worker(command, source, self.scratch / f"warm-{number}", self.start_timeout)
        with self.lock:
            self.workers.append(worker)
        return worker

    def _on(self, worker: Worker, app: Path, files: list, select: list, record: Path) -> dict:
        if worker.reason:
            raise Handback(worker.reason)
        change = differing_file(app, worker.source)
        meta = Path(tempfile.mkdtemp(prefix="run-", dir=self.scratch))
        (meta / "tmp").mkdir()
        job = TestJob(meta.name, str(worker.source), str(meta), dict([change]) if change else {},
                      tuple(select), timeout_sec=self.timeout_sec, memory_mb=0, file_order=tuple(files))
        try:
            run = worker.run(job, meta)
        except ServerDied as exc:
            worker.close()
            worker._start()  # replaced for the next run; this one runs fresh
            raise Handback(f"the warm worker died: {exc}") from None
        try:
            if isinstance(run, str):
                raise Handback(run)
            if run.status != "ok":
                raise Handback(f"the warm child ended with {run.status}: {run.detail}")
            missing = [t for t in select if t not in run.outcomes]
            if missing:
                raise Handback(f"{len(missing)} selected test(s) not run by the worker, e.g. {missing[0]}")
            shutil.copyfile(meta / "outcomes.jsonl", record)
        finally:
            shutil.rmtree(meta, ignore_errors=True)
        failing = sorted(t for t, outcome in run.outcomes.items() if outcome != outcomes.PASSED)
        note = (f"gen09: {len(select)} test(s) ran in a warm worker's fork; not passed: "
                + (", ".join(f"{t} ({run.outcomes[t]})" for t in failing[:20]) or "none"))
        return {"kind": "ran", "code": 1 if failing else 0, "note": note}

    def close(self) -> None:
        """Stop serving; end every worker; remove the scratch folder."""
        self.server.shutdown()
        self.server.server_close()
        for worker in self.workers:
            worker.close()
        shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def available(executor: str = "local") -> str:
    """Why warm verification cannot run here ('' when it can)."""
    if not hasattr(os, "fork") or not hasattr(socketserver, "ThreadingUnixStreamServer"):
        return f"this platform ({sys.platform}) has no fork() or Unix sockets"
    if executor != "local":
        return f"bundles are verified on the {executor} executor's machines"
    return ""
