"""gen09's warm-worker pytest plugin (loaded with ``-p gen09_warm`` next to ``gen09_pytest``).

The worker process imports pytest, the plugins, the repository's dependencies and its
conftest files, and collects the suite once. Then, instead of running tests, it serves
jobs read as JSON lines from the file descriptor ``$GEN09_WARM_IN`` (answers go to
``$GEN09_WARM_OUT``): for each job it plans the swap (``gen09_swap``; a mutation the swap
cannot carry is answered ``fallback`` with the reason, before any fork, and the caller runs
it in a fresh process), ``fork()``s, and the child

1. takes on the mutation (``gen09_swap.take_on``) and writes the mutated file into the
   worker's copy, for subprocesses a test starts (the worker restores it after the child);
   a job without a file (``path`` null) runs over the worker's own files;
2. records outcomes through ``gen09_pytest`` into the job's own record file;
3. runs the selected items in the order a fresh ``pytest FILES`` run would, the ones to
   run first at the front (stopping after them when they all pass), and exits.

Before the first fork the worker reads each item's ``location`` (a cached property every
test report reads), so no child computes it again: 6% of cachetools' child test loop.
A failure's report carries only pytest's crash line, whose message the record
keeps, not the formatted traceback nobody in a child reads (``_crash_only``: not where a
repository hook or plugin sees reports), and pytest's terminal reporter writes no progress
for each test into the worker's log (``_quiet_terminal``, on the same condition). The
standard-library modules a child imported are imported in the worker for the next children
(``_import_ahead``). A worker with threads running after collection refuses every job.
Standard library, pytest and ``gen09_swap`` (copied beside this file) only.
"""

import contextlib
import gc
import importlib
import importlib.util
import io
import json
import os
import resource
import sys
import sysconfig
import tempfile
import threading
import traceback
import warnings

import gen09_swap  # imported with this plugin, before conftest files: it notes every call from here on
import pytest


def _send(out, message):
    out.write(json.dumps(message) + "\n")
    out.flush()


def _order(keyed, selected, first, files):
    """The selected items in the order ``pytest FILES`` collects them, first ones in front
    (``keyed``: ``(node id, its file, item)`` of every collected item, in collection order)."""
    rank = {f: i for i, f in enumerate(files)}
    picked = [(rank.get(file, len(rank)), n, item) for n, (nodeid, file, item) in enumerate(keyed)
              if nodeid in selected]
    chosen = [item for _, _, item in sorted(picked, key=lambda entry: entry[:2])]
    if first:
        chosen = [i for i in chosen if i.nodeid in first] + [i for i in chosen if i.nodeid not in first]
    return chosen


# the hooks that are handed a test report: when only pytest and gen09 implement them, nothing
# in the child reads a failure's traceback text (the terminal summary is never printed)
_REPORT_HOOKS = ("pytest_runtest_makereport", "pytest_runtest_logreport", "pytest_report_teststatus",
                 "pytest_exception_interact")


def _only_ours(config):
    """Whether only pytest and gen09 implement the hooks that are handed test reports."""
    for name in _REPORT_HOOKS:
        for impl in getattr(config.hook, name).get_hookimpls():
            module = getattr(impl.function, "__module__", "") or ""
            if not module.startswith("_pytest.") and module not in ("gen09_pytest", "gen09_warm"):
                return False
    return True


def _quiet_terminal(config):
    """Take pytest's terminal reporter off the per-test hooks: in a child it only writes
    progress dots and percentages into the worker's log, which nothing reads (7% of
    cachetools' warm jobs). It stays registered, for a conftest that writes through it, and
    is left alone where a repository hook is handed reports (``_only_ours``): the reporter
    passes each one to ``pytest_report_teststatus``. Returns whether it was done."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None or not _only_ours(config) or not hasattr(config.hook.pytest_runtest_logreport,
                                                                  "_remove_plugin"):
        return False
    for name in ("pytest_runtest_logstart", "pytest_runtest_logreport", "pytest_runtest_logfinish"):
        caller = getattr(config.hook, name)
        if any(impl.plugin is reporter for impl in caller.get_hookimpls()):
            caller._remove_plugin(reporter)
    return True


# standard-library modules never imported ahead: their import shows (prints, opens a browser,
# sets up the terminal) or loads a GUI toolkit
_NEVER_AHEAD = frozenset({"this", "antigravity", "__hello__", "__phello__", "readline", "rlcompleter",
                          "idlelib", "tkinter", "turtle", "turtledemo"})
_paths = sysconfig.get_paths()
_STDLIB = tuple({os.path.join(_paths[k], "") for k in ("stdlib", "platstdlib")})
_SITE = tuple({os.path.join(_paths[k], "") for k in ("purelib", "platlib")})
_tried_ahead = set()


def _new_stdlib_modules(known):
    """The standard library's modules in ``sys.modules`` that are not in ``known``."""
    return sorted(name for name in sys.modules.keys() - known
                  if name.partition(".")[0] in sys.stdlib_module_names)


def _import_ahead(names):
    """Import in the worker the standard-library modules its children imported, so later
    children find them imported (each of cachetools' children imported ``pickle``: 5% of its
    warm jobs). Only a module the standard library's folders or the interpreter provide (a
    repository file of the same name is never imported here), each tried once; one whose
    import warns or prints is taken out of ``sys.modules`` again, so a child imports it as
    a fresh run would."""
    for name in names:
        top = name.partition(".")[0]
        if name in sys.modules or name in _tried_ahead or top in _NEVER_AHEAD:
            continue
        _tried_ahead.add(name)
        try:  # where it comes from, asked of its top-level package without importing anything
            spec = getattr(sys.modules.get(top), "__spec__", None) or importlib.util.find_spec(top)
        except Exception:  # noqa: BLE001 - an odd finder: leave it to the child
            continue
        origin = getattr(spec, "origin", None) or ""
        standard = origin.startswith(_STDLIB) and not origin.startswith(_SITE)
        if not standard and origin not in ("built-in", "frozen"):
            continue
        before = set(sys.modules)
        shown = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(shown), \
                contextlib.redirect_stderr(shown):
            warnings.simplefilter("always")
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the child's own import fails the same way
                caught.append(None)
        if caught or shown.getvalue():
            for added in sys.modules.keys() - before:
                del sys.modules[added]


def _read_learned(learned):
    """The module names children wrote into the non-blocking pipe ``learned``."""
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(learned, 65536):
            data += chunk
    return [name for line in data.decode("utf-8", "replace").splitlines() for name in line.split()]


def _crash_only(config):
    """Make a failure's report carry only what gen09's record reads — pytest's own crash
    line (``reprcrash``, whose message is recorded) — instead of formatting its whole
    traceback (8-13% of a child's test loop on cachetools and toolz). Only where no
    repository hook or plugin sees reports, and only for failures pytest gives a crash line
    by the same method; the rest (``pytest.fail``, fixture lookup errors, every frame
    hidden) are formatted as before. Returns whether it was done."""
    from _pytest._code.code import ExceptionInfo, ReprExceptionInfo, ReprTraceback
    from _pytest.nodes import Node

    if not hasattr(ExceptionInfo, "_getreprcrash") or not hasattr(Node, "_repr_failure_py"):
        return False
    if not _only_ours(config):
        return False
    formatted = Node._repr_failure_py
    special = (pytest.fail.Exception, getattr(pytest, "FixtureLookupError", ()))  # formatted differently

    def crash_line(self, excinfo, style=None):
        crash = None if isinstance(excinfo.value, special) else excinfo._getreprcrash()
        if crash is None:
            return formatted(self, excinfo, style)
        return ReprExceptionInfo(reprtraceback=ReprTraceback([], None, "short"), reprcrash=crash)

    Node._repr_failure_py = crash_line
    return True


def _child(session, keyed, job, plan, filename, learned, known):
    """Run one job in the forked child; never returns. It ends as a fresh ``pytest`` run
    would: a ``KeyboardInterrupt`` or ``pytest.exit()`` from a test ends the session with
    pytest's exit status for it, and any other exception that escapes (pytest broken by the
    mutant, or this code failing) is recorded as pytest's internal error (exit status 3).
    Last, it writes the standard-library modules it imported (beyond ``known``) into the
    pipe ``learned``, for the worker to import ahead (``_import_ahead``)."""
    code = 0
    recorder = sys.modules["gen09_pytest"]
    try:
        os.setpgid(0, 0)
        if job.get("memory_mb"):
            limit = job["memory_mb"] * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        os.environ["GEN09_OUTCOMES"] = job["outcomes"]  # first: what fails from here on is recorded
        recorder._state["out"] = open(job["outcomes"], "a", encoding="utf-8")  # noqa: SIM115
        if plan is not None:  # None: a job over the worker's own files
            gen09_swap.take_on(plan)
            cache = os.path.join(os.path.dirname(filename), "__pycache__")
            stem = os.path.splitext(os.path.basename(filename))[0] + "."
            for name in os.listdir(cache) if os.path.isdir(cache) else ():
                if name.startswith(stem) and name.endswith(".pyc"):  # the pristine text's bytecode
                    os.unlink(os.path.join(cache, name))
            with open(filename, "w", encoding="utf-8") as handle:  # subprocesses a test starts read the
                handle.write(job["text"])  # disk; the worker restores the file after the child
        os.environ["TMPDIR"] = tempfile.tempdir = job["tmpdir"]  # a temp folder of its own
        first = set(job.get("first") or ())
        items = _order(keyed, set(job["select"]), first, job["files"])
        recorder._state.update(first=first, left=sum(i.nodeid in first for i in items), dirty=False)
        recorder._write({"kind": "collected", "items": len(items)})  # the tests begin: stall limit on
        session.shouldstop = session.shouldfail = False
        try:
            for index, item in enumerate(items):
                nextitem = items[index + 1] if index + 1 < len(items) else None
                item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                if session.shouldfail or session.shouldstop:
                    break
        except (KeyboardInterrupt, pytest.exit.Exception) as stop:  # pytest ends the session there
            asked = getattr(stop, "returncode", None)
            code = 2 if asked is None else int(asked)  # 2: pytest's INTERRUPTED
        recorder._write({"kind": "finish", "exitstatus": code})
        recorder._state["out"].close()
        with contextlib.suppress(OSError):  # a full pipe: the worker learns less, nothing else
            os.write(learned, (" ".join(_new_stdlib_modules(known))[:4000] + "\n").encode())
    except BaseException:  # a crash in the child is the job's outcome, never the worker's
        code = 3  # pytest's INTERNAL_ERROR
        with contextlib.suppress(BaseException):  # the exit status still says what happened
            recorder._write({"kind": "internal_error", "message": traceback.format_exc()[-4000:]})
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
    gen09_swap.prepare()
    root = os.path.realpath(str(session.config.rootpath))
    keyed = [(item.nodeid, item.nodeid.split("::", 1)[0], item) for item in session.items]
    for item in session.items:  # a cached property every report reads: made here once, not in every child
        with contextlib.suppress(Exception):  # what cannot be made fails in the child, as in a fresh run
            _ = item.location
    _crash_only(session.config)
    _quiet_terminal(session.config)
    learned, learning = os.pipe()  # children write what they imported; the worker reads it
    os.set_blocking(learned, False)
    os.set_blocking(learning, False)
    gc.collect()
    gc.freeze()
    _send(out, {"kind": "ready", "items": len(session.items)})  # ready to fork: start-up ends here
    for line in inbound:
        job = json.loads(line)
        filename = os.path.join(root, job["path"]) if job["path"] else None
        plan = reason = None
        if threading.active_count() > 1:  # started by a module imported ahead: forking is not safe now
            _send(out, {"job": job["id"], "kind": "fallback", "reason": "a thread runs in the warm worker"})
            continue
        try:
            if filename:
                with open(filename, encoding="utf-8") as handle:
                    pristine = handle.read()
                plan, reason = gen09_swap.swap_plan(filename, pristine, job["text"], job["path"])
        except Exception as exc:  # a case this code did not foresee ends the job's warm try, not the worker
            plan, reason = None, f"the swap could not be planned: {type(exc).__name__}: {exc}"
        if reason:
            _send(out, {"job": job["id"], "kind": "fallback", "reason": reason})
            continue
        known = set(sys.modules)
        pid = os.fork()
        if pid == 0:
            _child(session, keyed, job, plan, filename, learning, known)
        _send(out, {"job": job["id"], "kind": "started", "pid": pid})
        _, status, usage = os.wait4(pid, 0)
        _send(out, {"job": job["id"], "kind": "done", "status": status,
                    "cpu": usage.ru_utime + usage.ru_stime})
        names = _read_learned(learned)
        if names:  # once per module, between two jobs
            _import_ahead(names)
            gc.freeze()
    return True
