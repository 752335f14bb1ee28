"""Two costs a warm worker takes off its children, without changing what a test sees: the
standard-library modules children import are imported once, in the worker, for the next
children (not one whose import warns); and pytest's terminal reporter no longer writes
progress into the worker's log for each test (kept where a repository hook is handed
reports, as the reporter hands it each one)."""

import sys
import textwrap

import pytest

from gen09_core.testrun.jobs import TestJob, run_job
from gen09_core.testrun.warm import WarmRunner
from tests.helpers import warm_project

LIB = "def add(a, b):\n    return a + b\n"

# a module nothing in pytest or gen09 imports, and one whose import warns on this Python
QUIET_MODULE = "colorsys"
WARNING_MODULE = next((name for name in ("imp", "asynchat", "telnetlib", "cgi")
                       if name in sys.stdlib_module_names and name not in sys.modules), None)


def _tests(seen):
    return textwrap.dedent(f'''
        import sys
        import warnings

        import lib


        def test_imports_a_module():
            with open({str(seen)!r}, "a") as handle:
                handle.write(str({QUIET_MODULE!r} in sys.modules) + "\\n")
            import {QUIET_MODULE}
            assert {QUIET_MODULE}.rgb_to_hsv(0, 0, 0) == (0, 0, 0)


        def test_imports_a_module_that_warns():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                __import__({WARNING_MODULE!r})
            assert caught, "a fresh import warns"


        def test_add():
            assert lib.add(1, 2) == 3
    ''')


def _jobs(repo, tmp_path, count, tests):
    return [TestJob(f"job{n}", str(repo), str(tmp_path / "jobs"), {"lib.py": LIB.replace("a + b", f"a + b + {n}")},
                    tests) for n in range(count)]


@pytest.mark.skipif(WARNING_MODULE is None, reason="no standard-library module warns on import here")
def test_modules_children_import_are_imported_ahead_unless_their_import_warns(tmp_path):
    seen = tmp_path / "seen.txt"
    repo, env = warm_project(tmp_path, LIB, _tests(seen))
    ids = tuple(f"tests/test_it.py::{name}" for name in ("test_imports_a_module", "test_imports_a_module_that_warns"))
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        warm = [runner(job) for job in _jobs(repo, tmp_path, 3, ids)]
    finally:
        runner.close()
    fresh = run_job(env, _jobs(repo, tmp_path, 1, ids)[0])
    assert [run.runner for run in warm] == ["warm"] * 3
    for run in (*warm, fresh):
        assert run.status == "ok" and set(run.outcomes.values()) == {"passed"}, (run.outcomes, run.failures)
    # the first child imported it; the worker then did, so the next children found it imported
    assert seen.read_text().split() == ["False", "True", "True", "False"]


def test_the_terminal_reporter_writes_nothing_per_test_in_a_child(tmp_path):
    repo, env = warm_project(tmp_path, LIB, _tests(tmp_path / "seen.txt"))
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        run = runner(_jobs(repo, tmp_path, 1, ("tests/test_it.py::test_add",))[0])
        log = runner.workers[0].log_path.read_text()
    finally:
        runner.close()
    assert (run.runner, run.outcomes) == ("warm", {"tests/test_it.py::test_add": "passed"})
    assert "%]" not in log and "." not in log.strip(), log


def test_a_repository_hook_is_still_handed_every_report(tmp_path):
    statuses = tmp_path / "statuses.txt"
    repo, env = warm_project(tmp_path, LIB, _tests(tmp_path / "seen.txt"))
    (repo / "tests" / "conftest.py").write_text(textwrap.dedent(f'''
        def pytest_report_teststatus(report, config):
            with open({str(statuses)!r}, "a") as handle:
                handle.write(report.when + " " + report.outcome + "\\n")
    '''))
    job = _jobs(repo, tmp_path, 1, ("tests/test_it.py::test_add",))[0]
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        warm = runner(job)
    finally:
        runner.close()
    from_warm = statuses.read_text()
    statuses.unlink()
    fresh = run_job(env, job)
    assert (warm.runner, warm.outcomes) == ("warm", fresh.outcomes)
    assert from_warm == statuses.read_text() == "setup passed\ncall passed\nteardown passed\n"


@pytest.mark.parametrize("kind", ["module", "package"])
def test_a_repository_module_named_like_a_standard_one_is_never_imported_ahead(tmp_path, kind):
    imports = tmp_path / "imports.txt"
    name = QUIET_MODULE if kind == "module" else f"{QUIET_MODULE}.sub"
    tests = textwrap.dedent(f'''
        def test_imports_the_repository_module():
            import {name}
            assert {QUIET_MODULE}.MINE
    ''')
    repo, env = warm_project(tmp_path, LIB, tests)
    counted = f"with open({str(imports)!r}, 'a') as out:\n    out.write('imported\\n')\nMINE = True\n"
    if kind == "module":
        (repo / f"{QUIET_MODULE}.py").write_text(counted)
    else:  # the child imports the package and its submodule: neither may be imported ahead
        (repo / QUIET_MODULE).mkdir()
        (repo / QUIET_MODULE / "__init__.py").write_text(counted)
        (repo / QUIET_MODULE / "sub.py").write_text("")
    runner = WarmRunner(env, repo, tmp_path / "warm")
    try:
        runs = [runner(job) for job in _jobs(repo, tmp_path, 3, ("tests/test_it.py::test_imports_the_repository_module",))]
    finally:
        runner.close()
    assert [(run.runner, set(run.outcomes.values())) for run in runs] == [("warm", {"passed"})] * 3
    assert imports.read_text().count("imported") == 3  # each child imported it itself
