"""What a test sees of the process in a warm child is what it sees in a fresh run: the same
modules in ``sys.modules`` — none that an earlier child imported (six's suite asserts
``html.parser`` is not imported before ``six.moves.html_parser`` is read; a worker that
imported ahead what children imported made that test fail in every later child, and
``gen09 mutate`` took it for a FAIL_TO_PASS test), none of gen09's warm-only modules — and
no ``$GEN09_WARM_*`` variable. Also: pytest's terminal reporter writes no progress into the
worker's log for each test (kept where a repository hook is handed reports, as the
reporter hands it each one)."""

import json
import textwrap

import pytest

from gen09_core.testrun.jobs import TestJob, run_job
from gen09_core.testrun.warm import WarmRunner
from tests.helpers import warm_project

LIB = "def add(a, b):\n    return a + b\n"
QUIET_MODULE = "colorsys"  # a module nothing in pytest or gen09 imports


def _tests(seen):
    return textwrap.dedent(f'''
        import json
        import os
        import sys

        import lib


        def test_imports_a_module():
            with open({str(seen)!r}, "a") as handle:
                handle.write(json.dumps([sorted(sys.modules), sorted(os.environ)]) + "\\n")
            import {QUIET_MODULE}
            assert {QUIET_MODULE}.rgb_to_hsv(0, 0, 0) == (0, 0, 0)


        def test_add():
            assert lib.add(1, 2) == 3
    ''')


def _jobs(repo, tmp_path, count, tests):
    return [TestJob(f"job{n}", str(repo), str(tmp_path / "jobs"), {"lib.py": LIB.replace("a + b", f"a + b + {n}")},
                    tests) for n in range(count)]


def test_a_child_sees_the_modules_and_variables_a_fresh_run_sees(tmp_path):
    seen = tmp_path / "seen.txt"
    repo, env = warm_project(tmp_path, LIB, _tests(seen))
    ids = ("tests/test_it.py::test_imports_a_module",)
    fresh = run_job(env, _jobs(repo, tmp_path, 1, ids)[0])
    runner = WarmRunner(env, repo, tmp_path / "warm", import_lines={"lib.py": []})  # $GEN09_WARM_RAN set
    try:
        warm = [runner(job) for job in _jobs(repo, tmp_path, 3, ids)]
    finally:
        runner.close()
    assert [run.runner for run in warm] == ["warm"] * 3
    for run in (fresh, *warm):
        assert run.status == "ok" and run.outcomes == {ids[0]: "passed"}, (run.outcomes, run.failures)
    (modules, variables), *children = [json.loads(line) for line in seen.read_text().splitlines()]
    assert QUIET_MODULE not in modules
    for child_modules, child_variables in children:  # the first child imported it: the later ones do not see it
        assert child_modules == modules
        assert set(child_variables) ^ set(variables) <= {"GEN09_SELECT"}  # the fresh run's selection file
        assert not [name for name in child_variables if name.startswith("GEN09_WARM")]


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
def test_each_child_imports_a_repository_module_itself(tmp_path, kind):
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
    else:  # the child imports the package and its submodule
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
