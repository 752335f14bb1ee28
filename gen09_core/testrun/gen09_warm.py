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
for each test into the worker's log (``_quiet_terminal``, on the same condition). What a
test can see of the process is a fresh run's: a child finds in ``sys.modules`` only what a
fresh run has imported by then (nothing imported ahead for it: six's suite checks that a
module is not imported before its lazy attribute is read), and no ``$GEN09_WARM_*``
variable. A worker with threads running after collection refuses every job.
Standard library, pytest and ``gen09_swap`` (copied beside this file) only.
"""

import contextlib
import gc
import json
import os
import sys
import tempfile
import threading
import traceback

import gen09_swap  # imported with this plugin, before conftest files: it notes every call from here on
import pytest

# gen09's own modules, which a fresh run does not import: a child takes them out of ``sys.modules``
_OURS = ("gen09_warm", "gen09_swap", "gen09_prefork")


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
    return sys.modules["gen09_pytest"].first_in_front(chosen, first) if first else chosen


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


def _child(session, keyed, job, plan, filename, collected):
    """Run one job in the forked child; never returns. Before the tests, it takes out of
    ``sys.modules`` every module a fresh run would not have there: gen09's warm-only ones
    and the ones imported since collection (``collected``: the names after it), so a test
    that checks what is imported sees what it sees in a fresh run. It ends as a fresh
    ``pytest`` run would: a ``KeyboardInterrupt`` or ``pytest.exit()`` from a test ends the
    session with pytest's exit status for it, and any other exception that escapes (pytest
    broken by the mutant, or this code failing) is recorded as pytest's internal error
    (exit status 3)."""
    code = 0
    recorder = sys.modules["gen09_pytest"]
    try:
        os.setpgid(0, 0)
        if job.get("memory_mb"):
            import resource  # here, not in the worker: a fresh run never imports it

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
        for name in (sys.modules.keys() - collected).union(_OURS):
            sys.modules.pop(name, None)
        first = set(job.get("first") or ())
        items = _order(keyed, set(job["select"]), first, job["files"])
        recorder._state.update(first=first, left=sum(i.nodeid in first for i in items), dirty=False)
        recorder._write({"kind": "collected", "items": len(items)})  # the tests begin: stall limit on
        session.shouldstop = session.shouldfail = False
        failed_before = session.testsfailed
        try:
            for index, item in enumerate(items):
                nextitem = items[index + 1] if index + 1 < len(items) else None
                item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
                if session.shouldfail or session.shouldstop:
                    break
        except (KeyboardInterrupt, pytest.exit.Exception) as stop:  # pytest ends the session there
            asked = getattr(stop, "returncode", None)
            code = 2 if asked is None else int(asked)  # 2: pytest's INTERRUPTED
        if code == 0 and session.testsfailed > failed_before:
            code = 1  # pytest's TESTS_FAILED, as a fresh run ends
        recorder._write({"kind": "finish", "exitstatus": code})
        recorder._state["out"].close()
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
    inbound = os.fdopen(int(os.environ.pop("GEN09_WARM_IN")), "r", encoding="utf-8")
    out = os.fdopen(int(os.environ.pop("GEN09_WARM_OUT")), "w", encoding="utf-8")
    collected = frozenset(sys.modules)  # what a fresh run has imported by now, with gen09's _OURS
    from gen09_prefork import reap  # after ``collected``: no child finds what it imports imported
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
    gc.collect()
    gc.freeze()
    _send(out, {"kind": "ready", "items": len(session.items)})  # ready to fork: start-up ends here
    for line in inbound:
        job = json.loads(line)
        filename = os.path.join(root, job["path"]) if job["path"] else None
        plan = reason = None
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
        pid = os.fork()
        if pid == 0:
            _child(session, keyed, job, plan, filename, collected)
        _send(out, {"job": job["id"], "kind": "started", "pid": pid})
        reaped = reap(pid, inbound)
        if reaped is None:  # gen09 is gone: its child was killed
            return True
        _, status, usage = reaped
        _send(out, {"job": job["id"], "kind": "done", "status": status,
                    "cpu": usage.ru_utime + usage.ru_stime})
    return True
