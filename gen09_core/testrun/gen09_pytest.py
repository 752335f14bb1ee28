"""gen09's pytest plugin (loaded with ``-p gen09_pytest``): records every test phase,
keyed by the node id exactly as pytest reports it, for ``gen09_outcomes`` to decide.

Environment variables (each optional):

- ``GEN09_OUTCOMES``: the JSON-lines record to write (one line per phase, flushed as it
  happens, so a killed run keeps what it did);
- ``GEN09_SELECT``: a file of node ids, one per line: exactly these tests run (compared
  as strings with the collected ids, never parsed);
- ``GEN09_FIRST``: a file of node ids to run first; when all of them pass, the session
  stops there (the rest is only needed when one of them fails);
- ``GEN09_COV_FILE``: per-test line coverage written there as JSON
  ``{"contexts": [node ids], "files": {file: {line: [indices into contexts]}}}``; lines run
  outside any test get the context ``""``.
  The repository's own coverage configuration is ignored, and coverage's warnings can
  never be turned into errors by the repository's ``filterwarnings``. Where the folder
  ``gen09_subcov`` lies beside this file, the Python subprocesses a test starts are measured
  too (see its ``sitecustomize.py``) and their lines count for that test.

Only the standard library, pytest and (for coverage) coverage.py are imported: this file
is copied verbatim into every bundle.
"""

import fnmatch
import functools
import glob
import json
import os
import shutil
import sys
import time
import warnings

import pytest

_state = {"out": None, "first": set(), "left": 0, "dirty": False}
_cov = None


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def _start_coverage():
    global _cov
    import coverage

    _cov = _quiet(coverage.Coverage, data_file=None, config_file=False, source=[os.getcwd()])
    _quiet(_cov.start)


def _measure_subprocesses():
    """Put ``gen09_subcov`` first on the ``PYTHONPATH`` the tests' subprocesses inherit, with
    the folder for their results and the work copy's root."""
    folder = _COV_FILE + ".sub"
    os.makedirs(folder, exist_ok=True)
    os.environ.update(GEN09_SUBCOV_DIR=folder, GEN09_SUBCOV_ROOT=os.getcwd(),
                      PYTHONPATH=os.pathsep.join(filter(None, (_SUBCOV, os.environ.get("PYTHONPATH")))))


def _work_copy_first():
    """Put the work copy's folders first in the packages a ``*-nspkg.pth`` file made at start:
    installing a project that declares ``namespace_packages`` (zc.lockfile 3.0.post1's ``zc``)
    writes one, and it makes ``zc`` the installed copy's alone, so ``zc.lockfile`` was imported
    from site-packages: mutants never ran, and pytest refused the test module as another file."""
    roots = [os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__path__", None)
        if "." in name or getattr(module, "__file__", None) is not None or path is None:
            continue
        own = (os.path.join(root, name) for root in roots)
        missing = [folder for folder in own if os.path.isdir(folder) and folder not in path]
        if missing:
            module.__path__ = [*missing, *path]


_work_copy_first()
_SUBCOV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen09_subcov")
# read once: a test may clear the environment (httplib2 0.22.0's ``os.environ.clear()``, written
# for ``pytest --forked``), and the coverage of the whole run was lost at its end
_COV_FILE = os.environ.get("GEN09_COV_FILE")
if _COV_FILE:
    _start_coverage()  # at import: conftest files and the package import are measured too
    if os.path.isdir(_SUBCOV):
        _measure_subprocesses()


def _ids(variable):
    path = os.environ.get(variable)
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        return [line.rstrip("\n") for line in handle if line.strip()]


# the clocks as they were at import, where no test can replace them: freezegun swaps the time
# module's functions, and (when a mutant breaks it, as in freezegun 1.5.1) a swapped
# `time.monotonic` that recursed made every record write fail and ended the session
_CLOCKS = (time.monotonic, time.process_time)


def _write(record):
    """Append ``record`` with when it was written (``at``: the system's monotonic clock, this
    process's CPU seconds and its pid), so the runner's stall limit counts from the moment
    a phase ended, not from when it next looked at the record."""
    out = _state["out"]
    if out is not None:
        monotonic, process_time = _CLOCKS
        out.write(json.dumps({**record, "at": [monotonic(), process_time(), os.getpid()]}) + "\n")
        out.flush()


# markers of the plugins gen09 never loads (pytest-cov, xdist, rerunfailures): a suite that marks
# tests with them must not fail on an unknown marker under --strict-markers or filterwarnings=error
FOREIGN_MARKERS = {"no_cover": "no_cover: skip coverage (pytest-cov)",
                   "xdist_group": "xdist_group(name): a worker group (pytest-xdist)",
                   "flaky": "flaky(reruns=0): rerun on failure (pytest-rerunfailures)"}


_TEST_FOLDERS = ("tests", "test", "testing")


def _test_packages(root):
    """The dotted names of ``root``'s test packages (a folder named as in ``_TEST_FOLDERS``, with an
    ``__init__.py``, at most two folders down), as pytest's rootdir-based imports name them."""
    names = set()
    for prefix in ("", "*/", "*/*/"):
        for name in _TEST_FOLDERS:
            for init in glob.glob(os.path.join(glob.escape(root), prefix + name, "__init__.py")):
                parts, up = [name], os.path.dirname(os.path.dirname(init))
                while up != root and os.path.isfile(os.path.join(up, "__init__.py")):
                    parts, up = [os.path.basename(up), *parts], os.path.dirname(up)
                names.add(".".join(parts))
    return sorted(names)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Have pytest rewrite the asserts of the test packages' helper modules too, as it does a
    test module's (vulture 2.16's ``tests/__init__.py`` holds ``check()``, whose failed assert
    said only ``AssertionError``); never a module already imported, which pytest would warn of."""
    names = [n for n in _test_packages(str(early_config.invocation_params.dir)) if n not in sys.modules]
    if names:
        pytest.register_assert_rewrite(*names)


def pytest_addoption(parser):
    """``--gen09-doctest=PATH[::MODULE]``: collect the doctests of the module or text file ``PATH``
    too, run as the suite ``MODULE`` builds runs them where it is named."""
    parser.addoption("--gen09-doctest", action="append", default=[], metavar="PATH[::MODULE]",
                     help="collect the doctests of this module or text file (one the repository's "
                          "own unittest suites run with DocTestSuite / DocFileSuite); with ::MODULE, "
                          "run them with the setUp, globs and option flags of the suite MODULE builds")


def _doctests_of(file_path, parent):
    """A doctest collector for ``file_path`` where ``--gen09-doctest`` names it and pytest's own
    doctest options (``--doctest-modules``, ``--doctest-glob``) would not collect it."""
    config = parent.config
    root = str(config.invocation_params.dir)
    named = {os.path.normpath(os.path.join(root, path)): builder for path, _, builder in
             (option.partition("::") for option in config.getoption("gen09_doctest"))}
    builder = named.get(os.path.normpath(str(file_path)))
    if builder is None:
        return None
    from _pytest import doctest

    module = file_path.suffix == ".py"
    globs = config.getoption("doctestglob") or ["test*.txt"]
    if config.option.doctestmodules if module else any(fnmatch.fnmatch(file_path.name, g) for g in globs):
        return None
    base = doctest.DoctestModule if module else doctest.DoctestTextfile
    collector = (_as_the_suite_runs(base) if builder else base).from_parent(parent, path=file_path)
    collector.builder = builder
    return collector


@functools.cache
def _as_the_suite_runs(base):
    """A subclass of pytest's doctest collector ``base`` whose items are the doctest cases of the
    suites the module ``builder`` builds (its ``test_suite()``, its ``load_tests``) for the file: each
    runs with the suite's globs, option flags and checker, inside its ``setUp`` and ``tearDown``
    (zope.lifecycleevent 6.0's ``handling.rst`` needs its ``setUp``). Where the module makes no
    such case, pytest's own doctests of the file."""
    from _pytest import doctest as pytest_doctest

    class SuiteDoctest(pytest_doctest.DoctestItem):
        def runtest(self):
            case, failures = self.case, []
            pytest_doctest._check_all_skipped(self.dtest)
            if case._dt_setUp is not None:
                case._dt_setUp(self.dtest)
            try:  # the globs kept for the tearDown, as unittest's own run keeps them
                self.runner.run(self.dtest, out=failures, clear_globs=False)
                if failures:
                    raise pytest_doctest.MultipleDoctestFailures(failures)
            finally:
                if case._dt_tearDown is not None:
                    case._dt_tearDown(self.dtest)
                self.dtest.globs.clear()
                self.dtest.globs.update(case._dt_globs)

    class SuiteDoctests(base):
        builder = ""

        def collect(self):
            cases = _suite_cases(self.builder, os.path.normpath(str(self.path)))
            if not cases:
                yield from super().collect()
            for case in cases:
                runner = pytest_doctest._get_runner(
                    checker=case._dt_checker or pytest_doctest._get_checker(), verbose=False,
                    optionflags=case._dt_optionflags,
                    continue_on_failure=pytest_doctest._get_continue_on_failure(self.config))
                test = case._dt_test
                item = SuiteDoctest.from_parent(self, name=test.name, runner=runner, dtest=test)
                item.case = case
                yield item

    return SuiteDoctests


def _suite_cases(builder, path):
    """The doctest cases of the file ``path`` in the suites the module ``builder`` builds (its
    ``test_suite()`` or ``suite()``, and its ``load_tests``), one per doctest name; none where they
    cannot be built."""
    import doctest
    import importlib
    import unittest

    try:
        module = importlib.import_module(builder)
        build = getattr(module, "test_suite", None) or getattr(module, "suite", None)  # Genshi 0.7.9
        stack = [build()] if callable(build) else []
        if callable(getattr(module, "load_tests", None)):
            stack.append(module.load_tests(unittest.TestLoader(), unittest.TestSuite(), None))
    except Exception:  # noqa: BLE001 - the doctests are then collected as pytest would
        return []
    cases = {}
    while stack:
        test = stack.pop(0)
        if isinstance(test, unittest.TestSuite):
            stack[:0] = list(test)  # in the suite's order
        elif isinstance(test, doctest.DocTestCase) and os.path.normpath(test._dt_test.filename or "") == path:
            cases.setdefault(test._dt_test.name, test)
    return list(cases.values())


if getattr(pytest, "version_tuple", (0,)) >= (7,):  # before 7 the hook had no ``file_path``
    @pytest.hookimpl(hookwrapper=True)
    def pytest_collect_file(file_path, parent):
        """The doctests ``--gen09-doctest`` names (see ``_doctests_of``). A text file gen09 also
        names as a path to run, pytest's doctest plugin collects too, with none of the suite's
        setUp: that collection is dropped, or each doctest ran twice (zope.testing 6.2)."""
        outcome = yield
        ours = _doctests_of(file_path, parent)
        if ours is not None:
            from _pytest.doctest import DoctestTextfile

            outcome.force_result([*(c for c in outcome.get_result() if type(c) is not DoctestTextfile), ours])


def pytest_configure(config):
    """Open the record; register the markers of the plugins gen09 leaves out."""
    known = {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}
    for name, line in FOREIGN_MARKERS.items():
        if name not in known:
            config.addinivalue_line("markers", line)
    path = os.environ.get("GEN09_OUTCOMES")
    if path and _state["out"] is None:
        _state["out"] = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed at unconfigure
        _write({"kind": "start", "pytest": pytest.__version__})


def pytest_collectreport(report):
    """Record a collection error with its message."""
    if report.failed:
        _write({"kind": "collect_error", "id": report.nodeid, "message": str(report.longrepr)[-4000:]})


def pytest_collection_modifyitems(session, config, items):
    """Keep exactly the selected ids; put the ones to run first at the front. A test to run
    first that was not collected has failed: the run will not stop early (pyrsistent 0.20.0:
    a mutant broke the collection of the covering tests' files, the others passed)."""
    selected = _ids("GEN09_SELECT")
    if selected is not None:
        wanted = set(selected)
        keep = [item for item in items if item.nodeid in wanted]
        dropped = [item for item in items if item.nodeid not in wanted]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep
    first = _ids("GEN09_FIRST")
    if first is not None:
        _state["first"] = set(first)
        items[:] = first_in_front(items, _state["first"])
        _state["left"] = sum(item.nodeid in _state["first"] for item in items)
        _state["dirty"] = _state["left"] < len(_state["first"])


def first_in_front(items, first):
    """``items`` with the ones named in ``first`` in front, in their order, each after the items
    before it of its document where that is no Python module or class: a document's examples
    share one namespace (sybil: tldextract 5.4.0's README imports the package in its first
    example, and its later examples, run first, raised NameError). Also the warm runner's."""
    last = {}
    for index, item in enumerate(items):
        if item.nodeid in first and not isinstance(item.parent, (pytest.Module, pytest.Class)):
            last[item.parent] = index
    head = [item for index, item in enumerate(items)
            if item.nodeid in first or index <= last.get(item.parent, -1)]
    taken = {id(item) for item in head}
    return head + [item for item in items if id(item) not in taken]


@functools.lru_cache(maxsize=None)  # noqa: UP033 - functools.cache is 3.9+; bundles may run older Pythons
def _real(path):
    """``os.path.realpath``, once per path: a failure's frames mostly share a few files."""
    return os.path.realpath(path)


def _trace(item, tb):
    """``[file, line]`` of each frame of a failure, from the first one in the test's own
    file on and without frames that hide themselves (``__tracebackhide__``): the frames
    pytest's traceback would show, read from the traceback itself, not from formatted text."""
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    own = _real(str(getattr(item, "path", None) or getattr(item, "fspath", "")))
    start = next((i for i, (frame, _) in enumerate(frames) if _real(frame.f_code.co_filename) == own), 0)
    here = str(item.config.invocation_params.dir) + os.sep  # not the cwd: a test may have changed it
    out = []
    for frame, line in frames[start:]:
        if frame.f_locals.get("__tracebackhide__") or frame.f_globals.get("__tracebackhide__"):
            continue
        path = frame.f_code.co_filename
        out.append([path[len(here):] if path.startswith(here) else path, line])
    return out[:30]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Note the frames of a failure on its report (``_trace``), and on a setup report
    whether the repository marks the test ``flaky`` (it reruns it with a plugin gen09
    never loads)."""
    outcome = yield
    compared = _state.pop("compared", None)
    excinfo = call.excinfo
    failed = excinfo is not None and excinfo.tb is not None
    marked = call.when == "setup" and item.get_closest_marker("flaky") is not None
    if not (failed or marked):
        return
    try:
        report = outcome.get_result()
    except BaseException:  # the hook itself failed: pytest reports that
        return
    if failed:
        report.gen09_compared = compared
        # a group's own frames end where it was raised (Hypothesis's wrapper of the test); its first
        # error's reach the check that failed (jsondiff 2.2.1's issues quoted ``@settings(...)``)
        leaf = _leaf(excinfo.value)
        report.gen09_trace = _trace(item, leaf is not excinfo.value and leaf.__traceback__ or excinfo.tb)
        report.gen09_first_error = _first_error(excinfo.value)
    if marked:
        report.gen09_marked_flaky = True


FIRST_ERROR = "its first error: "  # the line after an exception group's message that names its first error


def _leaf(error):
    """The first error an exception group holds (its first leaf), or ``error`` itself."""
    while type(error).__name__.endswith("ExceptionGroup") and getattr(error, "exceptions", None):
        error = error.exceptions[0]
    return error


def _first_error(error):
    """``Type: message`` of the first error an exception group holds (its first leaf: Hypothesis
    raises one of the distinct failures it found, textdistance 4.6.3), or "" for another exception."""
    first = _leaf(error)
    if first is error:
        return ""
    try:
        said = str(first)
    except Exception:  # noqa: BLE001 - a mutated __str__ of the code under test
        said = ""
    return f"{type(first).__name__}: {said}" if said else type(first).__name__


def pytest_assertrepr_compare(config, op, left, right):
    """Keep the sides of the comparison an ``assert`` failed on, printed up to 1,000 characters
    each, for ``_uncut``; pytest's own explanation is left as it is."""
    try:
        from _pytest._io.saferepr import saferepr
    except ImportError:  # a pytest that moved it: the message stays as pytest wrote it
        return
    _state["compared"] = (op, saferepr(left, maxsize=1000), saferepr(right, maxsize=1000))


def _uncut(message, compared):
    """``message`` whose first line ``assert LEFT OP RIGHT`` pytest cut to a line's width and explained
    no further (values of two types: jsondiff 2.2.1's ``assert [{1: 2}, {5: 3}] == {delete: {1:
    ...nsert: {5: 3}}``, then only "Use -v to get more diff"), with the sides ``compared`` held."""
    first, _, rest = message.partition("\n")
    if not compared or "..." not in first or rest.strip() not in ("", "Use -v to get more diff"):
        return message
    said = "AssertionError: " * first.startswith("AssertionError: ")
    whole = said + "assert {1} {0} {2}".format(*compared)
    head, *middle, tail = first.split("...")  # what pytest kept of the two sides, in order
    at = len(head) if whole.startswith(head) and whole != first else -1
    for piece in middle:
        found = whole.find(piece, at) if at >= 0 else -1
        at = found + len(piece) if found >= 0 else -1
    return f"{whole}\n{rest}" if 0 <= at <= len(whole) - len(tail) and whole.endswith(tail) else message


def _message(longrepr):
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return str(crash.message)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _capped(message, head=2500, tail=1500):
    """``message`` at most ``head`` + ``tail`` characters: its start and its end, where a traceback
    it holds ends in its exception (ijson 3.6.0's check prints a subprocess's output, then its error)."""
    return message if len(message) <= head + tail else f"{message[:head]}\n…\n{message[-tail:]}"


def pytest_runtest_logreport(report):
    """Record one phase (setup, call, teardown, or a subtest's call)."""
    record = {"kind": "phase", "id": report.nodeid, "when": report.when, "outcome": report.outcome,
              "duration": round(getattr(report, "duration", 0.0) or 0.0, 6)}
    if hasattr(report, "wasxfail"):
        record["xfail"] = True
    if getattr(report, "gen09_marked_flaky", False):
        record["marked_flaky"] = True
    if hasattr(report, "context"):
        record["subtest"] = str(getattr(report.context, "kwargs", "") or getattr(report.context, "msg", ""))
    if report.outcome != "passed" or "xfail" in record:
        if report.failed:
            first = getattr(report, "gen09_first_error", "")
            said = _uncut(_message(report.longrepr), getattr(report, "gen09_compared", None))
            record["message"] = _capped(said + (first and f"\n{FIRST_ERROR}{first}"))
            record["trace"] = getattr(report, "gen09_trace", [])
        if report.nodeid in _state["first"]:
            _state["dirty"] = True
    _write(record)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Switch the coverage context to the test; stop early after the first tests when
    none of them failed."""
    if _cov is not None:
        _quiet(_cov.switch_context, item.nodeid)
        os.environ["GEN09_COV_TEST"] = item.nodeid  # a subprocess's lines are this test's
    yield
    if _cov is not None:
        _quiet(_cov.switch_context, "")
        os.environ.pop("GEN09_COV_TEST", None)
    if item.nodeid in _state["first"]:
        _state["left"] -= 1
        if _state["left"] == 0 and not _state["dirty"] and nextitem is not None:
            item.session.shouldstop = "gen09: every test run first passed"
            _write({"kind": "stopped_early"})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtestloop(session):
    """Note when the tests begin (``collected``) and when they ended (``ran``): the runner's
    stall limit applies only in between."""
    _write({"kind": "collected", "items": len(session.items)})
    yield
    _write({"kind": "ran"})


def pytest_internalerror(excrepr, excinfo):
    """Record pytest's own crash."""
    _write({"kind": "internal_error", "message": str(excrepr)[-4000:]})


def pytest_sessionfinish(session, exitstatus):
    """Mark the record complete."""
    _write({"kind": "finish", "exitstatus": int(exitstatus)})


def pytest_unconfigure(config):
    """Save per-test coverage and close the record."""
    if _cov is not None:
        _quiet(_cov.stop)
        _save_coverage(_COV_FILE)
    if _state["out"] is not None:
        _state["out"].close()
        _state["out"] = None


def _save_coverage(path):
    data = _quiet(_cov.get_data)
    root = os.path.realpath(os.getcwd()) + os.sep  # pytest is back where it started (a test may chdir)
    out, index = {}, {}
    for measured in data.measured_files():
        real = os.path.realpath(measured)
        if not real.startswith(root):
            continue
        lines = {}
        for line, contexts in (_quiet(data.contexts_by_lineno, measured) or {}).items():
            lines[str(line)] = [index.setdefault(c, len(index)) for c in contexts]
        if lines:
            out[real[len(root):].replace(os.sep, "/")] = lines
    _add_subprocesses(out, index, path + ".sub")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({"contexts": list(index), "files": out}, handle)


def _add_subprocesses(out, index, folder):
    """Add to ``out`` the lines the tests' subprocesses ran (``gen09_subcov``'s results in
    ``folder``), each for the test that started it; the folder is removed."""
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                ran = json.load(handle)
        except (OSError, ValueError):
            continue  # a ".tmp" a killed subprocess left
        context = index.setdefault(ran["test"], len(index))
        for rel, lines in ran["files"].items():
            for line in lines:
                contexts = out.setdefault(rel, {}).setdefault(str(line), [])
                if context not in contexts:
                    contexts.append(context)
    shutil.rmtree(folder, ignore_errors=True)
