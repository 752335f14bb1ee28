"""gen09's warm-worker pytest plugin (loaded with ``-p gen09_warm`` next to ``gen09_pytest``).

The worker process imports pytest, the plugins, the repository's dependencies and its
conftest files, and collects the suite once. Then, instead of running tests, it serves
jobs read as JSON lines from the file descriptor ``$GEN09_WARM_IN`` (answers go to
``$GEN09_WARM_OUT``): for each job it ``fork()``s, and the child

1. swaps in the mutated code: the mutated file is compiled, and every function whose code
   changed gets its new code object on the live function objects (``f.__code__ = ...``);
   the file on disk is never written;
2. records outcomes through ``gen09_pytest`` into the job's own record file;
3. runs the selected items in the order a fresh ``pytest FILES`` run would, the ones to
   run first at the front (stopping after them when they all pass), and exits.

A mutation the swap cannot carry soundly is answered ``fallback`` with the reason, before
any fork: a change outside function bodies (module or class-level code, decorators,
default values, signatures), a definition added or removed, a changed nested function or
closure, a function the collected suite never imported, a function whose live code is not
what its file compiles to (a decorator rewrote it: typeguard's ``@typechecked``), a
function that ran at import or collection time (a decorator factory, a parametrize list:
what it made would not be remade; known from the pristine coverage run's import-time lines
when the caller passes them in ``$GEN09_WARM_RAN``, else from a profile hook noting every
call until the first fork), threads running in the worker.
The caller then runs that job in a fresh process. Standard library and pytest only.
"""

import gc
import json
import os
import resource
import sys
import tempfile
import threading
import types

import pytest

CO_NEWLOCALS = 0x0002  # set on function code objects, not on module or class bodies
_index = {}
_pristine = {}  # (file, its text) -> its compiled code table (see swap_plan)
_ran = set()  # code objects that ran before the first fork: swapping them would not replay that
# {file relative to the root: [lines]} that ran outside any test in the pristine coverage run,
# when the caller has them ($GEN09_WARM_RAN): then no profile hook is needed (it slows collection 2-3x)
_RAN_LINES_FILE = os.environ.get("GEN09_WARM_RAN")
_ran_lines = {}


def _note(frame, event, arg):
    if event == "call":
        _ran.add(frame.f_code)


# From this plugin's import on — before conftest files, the package and collection — every
# Python function that runs is noted: its effects (a decorator's closures, a registry, a
# parametrize list) already exist in the worker, and new code swapped in would not redo them.
if not _RAN_LINES_FILE:
    sys.setprofile(_note)


def _ran_before_fork(live, code, rel):
    """Whether the function of ``code`` (the pristine one) ran before the first fork: from
    the pristine run's import-time lines when known, else from the profile hook's notes."""
    if not _RAN_LINES_FILE:
        return any(function.__code__ in _ran for function in live)
    body = {line for _, _, line in code.co_lines() if line} - {code.co_firstlineno}
    return not body or bool(body & _ran_lines.get(rel, set()))  # a one-line function: not known


def _send(out, message):
    out.write(json.dumps(message) + "\n")
    out.flush()


def _signature(code, deep):
    consts = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            consts.append(_signature(const, True) if deep else "<code>")
        else:
            consts.append(repr(const))
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, code.co_flags,
            code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, tuple(consts))


def _walk(code, table):
    """``{qualname: code}`` of the module and class bodies and of the functions defined
    directly in them (a function's nested code belongs to its own signature)."""
    table[code.co_qualname] = code
    if code.co_flags & CO_NEWLOCALS:
        return table
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            _walk(const, table)
    return table


def swap_plan(filename, old_text, new_text, rel):
    """``([(live functions, new code)], "")`` when the change lives in function bodies the
    worker has imported, else ``([], reason)``; ``rel`` is the file relative to the root."""
    try:
        key = (filename, old_text)  # the same pristine file comes back job after job
        if key not in _pristine:
            _pristine[key] = _walk(compile(old_text, filename, "exec", dont_inherit=True), {})
        old = _pristine[key]
        new = _walk(compile(new_text, filename, "exec", dont_inherit=True), {})
    except (SyntaxError, ValueError) as exc:
        return [], f"does not compile: {exc}"
    if set(old) != set(new):
        return [], "a definition was added or removed"
    plan = []
    for name, code in new.items():
        function = bool(code.co_flags & CO_NEWLOCALS)
        if _signature(code, function) == _signature(old[name], function):
            continue
        if not function:
            return [], f"module or class-level code changed ({name})"
        if code.co_freevars != old[name].co_freevars:
            return [], f"the closure of {name} changed"
        live = _live().get((os.path.realpath(filename), name), [])
        if not live:
            return [], f"{name} was never imported by the collected suite"
        if any(_signature(f.__code__, True) != _signature(old[name], True) for f in live):
            return [], f"the code of {name} was rewritten after import (a decorator such as typeguard's)"
        if _ran_before_fork(live, old[name], rel):
            return [], f"{name} ran at import or collection time"
        plan.append((live, code))
    if not plan:
        return [], "no function's code changed"
    return plan, ""


def _live():
    if not _index:
        real = {}  # co_filename -> its real path (one lookup per file, not per function)
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                code = obj.__code__
                if code.co_filename not in real:
                    real[code.co_filename] = os.path.realpath(code.co_filename)
                _index.setdefault((real[code.co_filename], code.co_qualname), []).append(obj)
    return _index


def _order(items, selected, first, files):
    """The selected items in the order ``pytest FILES`` collects them, first ones in front."""
    rank = {f: i for i, f in enumerate(files)}
    chosen = sorted((item for item in items if item.nodeid in selected),
                    key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))
    if first:
        chosen = [i for i in chosen if i.nodeid in first] + [i for i in chosen if i.nodeid not in first]
    return chosen


def _child(session, job, plan, filename):
    """Run one job in the forked child; never returns."""
    code = 0
    try:
        os.setpgid(0, 0)
        if job.get("memory_mb"):
            limit = job["memory_mb"] * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        for live, new_code in plan:
            for function in live:
                function.__code__ = new_code
        cache = os.path.join(os.path.dirname(filename), "__pycache__")
        stem = os.path.splitext(os.path.basename(filename))[0] + "."
        for name in os.listdir(cache) if os.path.isdir(cache) else ():
            if name.startswith(stem) and name.endswith(".pyc"):  # the pristine text's bytecode
                os.unlink(os.path.join(cache, name))
        with open(filename, "w", encoding="utf-8") as handle:  # subprocesses a test starts read the disk;
            handle.write(job["text"])  # the worker restores the file after the child
        os.environ["TMPDIR"] = tempfile.tempdir = job["tmpdir"]  # a temp folder of its own
        recorder = sys.modules["gen09_pytest"]
        os.environ["GEN09_OUTCOMES"] = job["outcomes"]
        recorder._state["out"] = open(job["outcomes"], "a", encoding="utf-8")  # noqa: SIM115
        first = set(job.get("first") or ())
        items = _order(session.items, set(job["select"]), first, job["files"])
        recorder._state.update(first=first, left=sum(i.nodeid in first for i in items), dirty=False)
        session.shouldstop = session.shouldfail = False
        for index, item in enumerate(items):
            nextitem = items[index + 1] if index + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail or session.shouldstop:
                break
        recorder._write({"kind": "finish", "exitstatus": 0})
        recorder._state["out"].close()
    except BaseException:  # a crash in the child is the job's outcome, never the worker's
        code = 70
    finally:
        sys.stdout.flush()
        os._exit(code)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """Serve jobs instead of running the suite."""
    inbound = os.fdopen(int(os.environ["GEN09_WARM_IN"]), "r", encoding="utf-8")
    out = os.fdopen(int(os.environ["GEN09_WARM_OUT"]), "w", encoding="utf-8")
    if threading.active_count() > 1:
        threads = threading.active_count() - 1
        _send(out, {"kind": "unusable",
                    "reason": f"{threads} thread(s) run after collection: forking is not safe"})
        return True
    sys.setprofile(None)
    if _RAN_LINES_FILE:
        with open(_RAN_LINES_FILE, encoding="utf-8") as handle:
            _ran_lines.update({rel: set(lines) for rel, lines in json.load(handle).items()})
    root = os.path.realpath(str(session.config.rootpath))
    _live()
    gc.collect()
    gc.freeze()
    _send(out, {"kind": "ready", "items": len(session.items)})  # ready to fork: start-up ends here
    for line in inbound:
        job = json.loads(line)
        filename = os.path.join(root, job["path"])
        with open(filename, encoding="utf-8") as handle:
            plan, reason = swap_plan(filename, handle.read(), job["text"], job["path"])
        if reason:
            _send(out, {"job": job["id"], "kind": "fallback", "reason": reason})
            continue
        pid = os.fork()
        if pid == 0:
            _child(session, job, plan, filename)
        _send(out, {"job": job["id"], "kind": "started", "pid": pid})
        _, status, usage = os.wait4(pid, 0)
        _send(out, {"job": job["id"], "kind": "done", "status": status,
                    "cpu": usage.ru_utime + usage.ru_stime})
    return True
