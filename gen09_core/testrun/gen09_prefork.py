"""gen09's pre-import fork server (run as a script by the repository's interpreter).

It imports pytest and pytest's own plugin modules — nothing of the repository, its conftest
files or its dependencies — then serves jobs read as JSON lines from the file descriptor
``$GEN09_WARM_IN`` (answers go to ``$GEN09_WARM_OUT``). For each job it ``fork()``s, and the
child becomes the ``python -m pytest ARGS`` process the job would otherwise have started:
its own process group and address-space limit, the job's folder, environment, ``sys.path``
(the folder, the job's ``PYTHONPATH``, then the interpreter's own entries, as a new
interpreter would have them), ``sys.argv`` and output file; it then runs pytest's
``__main__`` module as ``__main__`` (what ``-m pytest`` runs: ``pytest.console_main()`` warns
from pytest 9.1 on) and ends the way that process ends (non-daemon threads joined,
``atexit`` handlers run, output flushed, pytest's exit status), short of tearing the
interpreter down.

What differs from a new interpreter is only that pytest's modules are already imported; the
interpreter-start variables (``PYTHONHASHSEED``, ``PYTHONDONTWRITEBYTECODE``) are the ones the
server was started with, which the caller makes the same. A job whose own folders hold a
module the server imported from elsewhere (pluggy's repository, pygments', pytest's: a new
interpreter would import the job's copy first) is answered ``fallback`` with the reason,
without a fork; the caller runs it in a new process. Standard library and pytest only.
"""

import atexit
import contextlib
import gc
import importlib
import importlib.machinery
import json
import os
import resource
import runpy
import select
import signal
import sys

import _pytest.config
import pytest  # noqa: F401 - imported once here, not in every child

for _name in _pytest.config.default_plugins:
    with contextlib.suppress(ImportError):  # a plugin of a newer Python or pytest than this one
        importlib.import_module(f"_pytest.{_name}")

_BASE_PATH = sys.path[1:]  # this script's folder comes first; the interpreter's entries follow
# the top-level modules outside the standard library imported here (pytest, pluggy, iniconfig, py,
# pygments, ...), with the real path of the file each came from
_IMPORTED = {name: os.path.realpath(module.__spec__.origin) for name, module in list(sys.modules.items())
             if "." not in name and name not in sys.stdlib_module_names
             and os.path.isabs(getattr(getattr(module, "__spec__", None), "origin", None) or "")}


def _child_path(cwd, pythonpath):
    """``sys.path`` of ``python -m pytest`` started in ``cwd`` with ``PYTHONPATH`` set."""
    # the interpreter makes its entries absolute and unique (site.removeduppaths), then puts
    # the folder in front (``-m``) even when it is one of them
    entries = [os.path.abspath(p) for p in pythonpath.split(os.pathsep) if p] + _BASE_PATH
    return [cwd, *dict.fromkeys(entries)]


def _shadowed(job):
    """Why a new interpreter would import one of the modules imported here from another
    file — the job's own copy, found first on its ``sys.path`` — or "" when none."""
    path = _child_path(job["cwd"], job["env"].get("PYTHONPATH", ""))
    for name, origin in _IMPORTED.items():
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        found = getattr(spec, "origin", None)
        if found and os.path.isabs(found) and os.path.realpath(found) != origin:
            return (f"the job's folders hold {name}, which pytest imported from elsewhere in the fork "
                    "server: a new interpreter imports the job's")
    return ""


def _become(job, protocol):
    """In the child: take on the job's process state, then raise pytest's exit."""
    os.setpgid(0, 0)
    for handle in protocol:
        handle.close()
    if job.get("memory_mb"):
        limit = job["memory_mb"] * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    sys.path[:] = _child_path(os.getcwd(), job["env"].get("PYTHONPATH", ""))
    importlib.invalidate_caches()
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None  # re-read from the job's TMPDIR
    sink = os.open(job["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    os.close(sink)
    sys.argv = ["-m", *job["args"]]  # runpy puts pytest/__main__.py first, as ``-m`` does
    try:
        runpy.run_module("pytest", run_name="__main__", alter_sys=True)
        code = None
    except SystemExit as stop:
        code = stop.code
    _exit(code)


def _exit(code):
    """End the child the way the interpreter ends on ``SystemExit(code)`` — non-daemon
    threads joined, ``atexit`` handlers run, a message printed, output flushed — without
    then tearing itself down object by object (~20 ms of a toolz run): the process's memory
    is thrown away anyway, and the run's record was complete at pytest's unconfigure."""
    threading = sys.modules.get("threading")
    if threading is not None and hasattr(threading, "_shutdown"):
        threading._shutdown()
    atexit._run_exitfuncs()
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


def reap(pid, inbound):
    """``os.wait4(pid, 0)`` of the forked child ``pid``, or None when gen09 is gone first: the
    pipe it sends jobs on (``inbound``, on which it writes nothing while a child runs) closed,
    as when gen09 is killed, even by a SIGKILL it cannot catch. The child and its process
    group are then killed and reaped: no test runs on with nobody left to enforce its limits.
    Without ``os.pidfd_open`` (Linux before 5.3, other systems) it just waits."""
    try:
        child = os.pidfd_open(pid)
    except (AttributeError, OSError):
        return os.wait4(pid, 0)
    try:
        ready, _, _ = select.select([child, inbound], [], [])
    finally:
        os.close(child)
    if child in ready:
        return os.wait4(pid, 0)
    for target in (-pid, pid):  # its group, and itself should it not have made one yet
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(target, signal.SIGKILL)
    os.wait4(pid, 0)
    return None


def serve():
    """Answer jobs until the input closes; each job runs in a forked child."""
    inbound = os.fdopen(int(os.environ.pop("GEN09_WARM_IN")), "r", encoding="utf-8")
    out = os.fdopen(int(os.environ.pop("GEN09_WARM_OUT")), "w", encoding="utf-8")
    gc.collect()
    gc.freeze()
    out.write(json.dumps({"kind": "ready"}) + "\n")
    out.flush()
    for line in inbound:
        job = json.loads(line)
        reason = _shadowed(job)
        if reason:
            out.write(json.dumps({"kind": "fallback", "reason": reason}) + "\n")
            out.flush()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _become(job, (inbound, out))  # never returns: the child's SystemExit ends it
        out.write(json.dumps({"kind": "started", "pid": pid}) + "\n")
        out.flush()
        reaped = reap(pid, inbound)
        if reaped is None:
            return
        _, status, usage = reaped
        cpu = usage.ru_utime + usage.ru_stime
        out.write(json.dumps({"kind": "done", "status": status, "cpu": cpu}) + "\n")
        out.flush()


if __name__ == "__main__":
    serve()
