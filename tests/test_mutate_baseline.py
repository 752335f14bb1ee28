"""mutate.baseline: stable, flaky and failing tests from two pristine runs."""

import functools
import shutil

import pytest

from gen09_core.mutate.baseline import derive_baseline
from gen09_core.testrun.jobs import TestRun


def test_flaky_tests_are_those_whose_outcome_differs():
    first = TestRun("a", "ok", {"t::a": "passed", "t::b": "passed", "t::c": "failed", "t::d": "passed"})
    second = TestRun("b", "ok", {"t::a": "passed", "t::b": "failed", "t::c": "failed"},
                     coverage={"m.py": {3: ["t::a", "t::b"]}})
    base = derive_baseline(first, second)
    assert base.stable == ("t::a",)
    assert base.flaky == ("t::b", "t::d")
    assert base.failing == ("t::c",)
    assert base.coverage == {"m.py": {3: ["t::a"]}}


def test_baseline_json_names_each_covering_test_by_its_index(tmp_path):
    """packaging 24.1: 1.16 million (line, test) pairs of 7,779 tests made a 195 MB
    baseline.json and a 1 GB gen09 process, each pair its own copy of the id. On disk a pair is
    the test's index in ``stable``; read back, every pair is the ``stable`` string itself. A
    file an older gen09 wrote (full ids) still reads."""
    import json

    from gen09_core.mutate.baseline import load_baseline, save_baseline

    ids = [f"tests/test_m.py::test_{i}[{'x' * 40}]" for i in range(3)]
    first = TestRun("a", "ok", dict.fromkeys(ids, "passed"))
    second = TestRun("b", "ok", {**dict.fromkeys(ids, "passed"), ids[2]: "failed"},
                     coverage={"m.py": {3: [ids[0], ids[1], ids[2]], 4: ["".join(ids[1])], 5: [ids[2]]}})
    base = derive_baseline(first, second)
    assert base.coverage == {"m.py": {3: ids[:2], 4: [ids[1]]}}
    assert base.coverage["m.py"][4][0] is base.stable[1]  # not the run's own copy
    save_baseline(tmp_path / "baseline.json", base)
    data = json.loads((tmp_path / "baseline.json").read_text())
    assert data["coverage"] == {"m.py": {"3": [0, 1], "4": [1]}}
    back = load_baseline(tmp_path / "baseline.json")
    assert back == base
    assert all(t is back.stable[1] for t in (back.coverage["m.py"][3][1], back.coverage["m.py"][4][0]))
    data["coverage"] = {"m.py": {"3": ids[:2], "4": [ids[1]]}}  # an older gen09's file
    (tmp_path / "old.json").write_text(json.dumps(data))
    old = load_baseline(tmp_path / "old.json")
    assert old == base and old.coverage["m.py"][4][0] is old.stable[1]


def test_every_parametrization_of_a_flaky_test_is_flaky():
    """One racy case of a parametrized test makes all its cases flaky: the two pristine runs
    rarely catch every racy one (click's test_echo_via_pager)."""
    ids = ["t.py::test_pager[a]", "t.py::test_pager[b]", "t.py::test_pager[c]", "t.py::test_pagers", "t.py::other"]
    first = TestRun("a", "ok", dict.fromkeys(ids, "passed"))
    second = TestRun("b", "ok", {**dict.fromkeys(ids, "passed"), "t.py::test_pager[b]": "failed"})
    base = derive_baseline(first, second)
    assert base.flaky == ("t.py::test_pager[a]", "t.py::test_pager[b]", "t.py::test_pager[c]")
    assert base.stable == ("t.py::other", "t.py::test_pagers")


def test_no_tests_collected_says_whether_the_source_ships_test_files(tmp_path):
    from gen09_core.mutate.baseline import Baseline, no_stable_tests

    empty = Baseline((), (), (), {}, 0.0, problems=(" no tests ran in 0.00s",))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text("x = 1\n")
    message = no_stable_tests(empty, "python-pytest", tmp_path, "install the project pkg")
    assert "First error: no tests ran in 0.00s." in message
    assert "no test_*.py, *_test.py, test*.py or Test*.py file" in message and "test_paths" not in message

    # ply 3.11: unittest modules named test/testlex.py, which pytest's default pattern misses (the
    # runs name them: a source that has them ships its tests)
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "testlex.py").write_text("import unittest\n")
    message = no_stable_tests(empty, "python-pytest", tmp_path, "install the project ply")
    assert "ships its tests" not in message and "python_files" not in message
    # ... whose modules call unittest.main() when imported: pytest's run ends in an internal error
    stopped = Baseline((), (), (), {}, 0.0, problems=("pytest internal error: SystemExit: 2",))
    message = no_stable_tests(stopped, "python-pytest", tmp_path, "install the project ply")
    assert "unittest.main()" in message and "python_files" not in message
    shutil.rmtree(tmp_path / "test")
    # uncertainties 3.2.2: a test module calls sys.exit() when `import numpy` fails
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_la.py").write_text(
        "try:\n    import numpy\n    from numpy import linalg\nexcept ImportError:\n    import sys\n"
        "    sys.exit()\n")
    exited = Baseline((), (), (), {}, 0.0, problems=(
        "pytest internal error: SystemExit (at /tmp/run/work/jobs/baseline-1/tests/test_la.py:6)",))
    message = no_stable_tests(exited, "python-pytest", tmp_path, "install the project uncertainties")
    assert ("install numpy: tests/test_la.py ends the run at line 6 when importing them fails: "
            'profiles.repo.install = ["python -m pip install . numpy"]') in message
    shutil.rmtree(tmp_path / "tests")

    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "test_core.py").write_text("def test_x():\n    pass\n")
    message = no_stable_tests(Baseline((), (), (), {}, 0.0), "python-pytest", tmp_path, "install the project pkg")
    assert "point profiles.repo.test_paths at the tests" in message
    # mccabe 0.7.0's test module fails at import without hypothesis: the tests are there, not importable
    broken = Baseline((), (), (), {}, 0.0, problems=("test_core.py: E   NameError: name 'settings' is not defined",))
    message = no_stable_tests(broken, "python-pytest", tmp_path, "install the project pkg")
    assert "make the test files importable" in message and "test_paths" not in message
    # markdown2 2.5.0's test module yields its cases (nose style): nothing to install would help
    yields = Baseline((), (), (), {}, 0.0, problems=("test/test_markdown2.py: 'yield' keyword is allowed in "
                                                     "fixtures, but not in tests (test_cases)",))
    message = no_stable_tests(yields, "python-pytest", tmp_path, "install the project markdown2")
    assert "nose-style generator tests" in message and "importable" not in message
    # pyfiglet 1.0.2's only test file is a script whose class Test takes options: pytest collects nothing
    (tmp_path / "pkg" / "test.py").write_text("class Test(object):\n    def __init__(self, opts):\n        pass\n")
    script = Baseline((), (), (), {}, 0.0, problems=("pkg/test.py:1: PytestCollectionWarning: cannot collect test "
                                                     "class 'Test' because it has a __init__ constructor",))
    message = no_stable_tests(script, "python-pytest", tmp_path, "install the project pyfiglet")
    assert "takes arguments in __init__" in message and "python_files" not in message
    # commonmark 0.9.1: only doctests, and the hypothesis its tests_require pins fails to import on 3.11
    plugin = Baseline((), (), (), {}, 0.0, problems=(
        'Error while loading plugin "hypothesispytest". … E   ImportError: cannot import name \'Sequence\' '
        "from 'collections'",))
    message = no_stable_tests(plugin, "python-pytest", tmp_path, "install the project commonmark")
    assert "install a version of the package providing the pytest plugin 'hypothesispytest' that loads on " \
           "this Python (profiles.repo.install)" in message and "ships its tests" not in message, message


def test_a_test_the_repository_marks_flaky_is_flaky_though_it_passed_twice():
    ids = ["t.py::test_timing[1]", "t.py::test_timing[2]", "t.py::test_other"]
    first = TestRun("a", "ok", dict.fromkeys(ids, "passed"), marked_flaky=("t.py::test_timing[1]",))
    second = TestRun("b", "ok", dict.fromkeys(ids, "passed"))
    base = derive_baseline(first, second)
    assert base.flaky == ("t.py::test_timing[1]", "t.py::test_timing[2]")
    assert base.stable == ("t.py::test_other",)


def test_a_name_from_a_failed_optional_import_names_the_modules_to_install(tmp_path):
    # mccabe 0.7.0: `try: import hypothesmith; from hypothesis import settings ... except
    # ImportError`, then `@settings(...)` at import: NameError; the hint said only "install what
    # the test files import"
    from gen09_core.mutate.baseline import Baseline, no_stable_tests

    (tmp_path / "test_mc.py").write_text(
        "import pytest\ntry:\n    import hypothesmith\n    from hypothesis import given, settings\n"
        "except (ModuleNotFoundError, ImportError):\n    hypothesmith = None\n\n\n@settings(max_examples=5)\n"
        "def test_x():\n    pass\n")
    problem = "test_mc.py: E   NameError: name 'settings' is not defined"
    broken = Baseline((), (), (), {}, 0.0, problems=(problem,))
    message = no_stable_tests(broken, "python-pytest", tmp_path, "install the project mc")
    assert "install hypothesmith, hypothesis: a test file imports them inside try/except ImportError" \
        " and uses 'settings' from there anyway" in message
    assert 'profiles.repo.install = ["python -m pip install . hypothesmith hypothesis"]' in message
    other = Baseline((), (), (), {}, 0.0, problems=("test_mc.py: E   NameError: name 'pytest_x' is not defined",))
    assert "hypothesmith" not in no_stable_tests(other, "python-pytest", tmp_path, "install the project mc")


def test_a_missing_module_of_a_package_the_source_has_is_a_module_it_does_not_ship(tmp_path):
    # construct 2.10.70's sdist ships tests/test_*.py, which import tests.declarativeunittest,
    # and not that module: the hint said to set pythonpath to the folder that holds 'tests'
    from gen09_core.mutate.baseline import Baseline, no_stable_tests

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_core.py").write_text("from tests.declarativeunittest import *\n")
    problem = "tests/test_core.py: E   ModuleNotFoundError: No module named 'tests.declarativeunittest'"
    message = no_stable_tests(Baseline((), (), (), {}, 0.0, problems=(problem,)), "python-pytest", tmp_path,
                              "install the project construct")
    assert "use a source that ships 'tests.declarativeunittest'" in message and "pythonpath" not in message
    (tmp_path / "tests" / "declarativeunittest.py").write_text("")  # there, yet not found: the path is wrong
    message = no_stable_tests(Baseline((), (), (), {}, 0.0, problems=(problem,)), "python-pytest", tmp_path,
                              "install the project construct")
    assert "set profiles.repo.pythonpath to the folder that holds 'tests'" in message


def test_a_missing_compiled_extension_is_named_with_the_editable_install_that_builds_it(tmp_path):
    # pygeohash 3.5.1: the source holds pygeohash/cgeohash/geohash_module.c, built only at install, and
    # its tests import the package from the source folder; the hint said the sdist left the module out
    from gen09_core.mutate.baseline import Baseline, no_stable_tests

    (tmp_path / "geo" / "c").mkdir(parents=True)
    (tmp_path / "geo" / "c" / "module.c").write_text("")
    problem = "tests/test_geo.py: E   ModuleNotFoundError: No module named 'geo.c.module'"
    message = no_stable_tests(Baseline((), (), (), {}, 0.0, problems=(problem,)), "python-pytest", tmp_path,
                              "install the project geo")
    assert "install the project editable, which builds its compiled extension 'geo.c.module' (geo/c/module.c)" \
        in message and 'profiles.repo.install = ["python -m pip install -e ."]' in message, message
    assert "use a source that ships" not in message


def test_a_test_module_that_exits_when_an_import_fails_is_named_with_the_install_that_fixes_it(tmp_path):
    """Real pytest: its internal error names the module-level line that raised SystemExit, and the
    message the module to install (uncertainties 3.2.2 without numpy)."""
    from tests.helpers import MUTATE_FIXTURE, mutate_fixture_copy

    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "tests" / "check_exits.py").write_text(
        "try:\n    import gen09_no_such_module\nexcept ImportError:\n    import sys\n    sys.exit()\n")
    _, done = mutate_fixture_copy(tmp_path, repo, max_mutants=4)
    assert done.returncode == 1
    assert "pytest internal error: SystemExit (at " in done.stderr
    assert "install gen09_no_such_module: tests/check_exits.py ends the run at line 5" in done.stderr


def test_a_pristine_run_a_signal_ended_names_the_test_and_how_to_leave_it_out(tmp_path):
    """transitions 0.9.3: a test of pygraphviz (built without graphviz) ended every pristine run with
    SIGSEGV, and the error showed the tail of faulthandler's frames, cut mid-word. A real pytest run."""
    from tests.helpers import MUTATE_FIXTURE, mutate_fixture_copy

    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "tests" / "check_segv.py").write_text("import ctypes\n\n\ndef test_draw():\n    ctypes.string_at(0)\n")
    _, done = mutate_fixture_copy(tmp_path, repo, max_mutants=4)
    assert done.returncode != 0
    assert "(killed by SIGSEGV, while tests/check_segv.py::test_draw ran)" in done.stderr, done.stderr
    assert 'leave out the tests of that name: profiles.repo.pytest_args = ["-k", "not test_draw"]' in done.stderr


CHAIN = '''
import pytest

ran = []


def test_a_skipped_start():
    ran.append(0)
    pytest.skip("left out: never stable")


def test_other():
    pass


''' + "".join(f"def test_link_{n}():  # needs the one before to have run, passed or not\n"
              f"    last = ran[-1] if ran else None\n    ran.append({n})\n    assert last == {n - 1}\n\n\n"
              for n in range(1, 7))


def test_the_stable_tests_run_on_their_own_until_none_drops_out(tmp_path, monkeypatch):
    """plum-dispatch 2.10.1: sybil runs a Markdown file's examples in one namespace, each needing the
    one before; leaving out a skipped one failed the next, and leaving that out the next (eight runs
    of the stable tests on their own). After three runs, 405 tests that failed together were
    stable, and all 30 tasks' oracles failed. A real pytest run of a chain of six; with fewer runs
    allowed than it needs, the baseline says so instead of passing on what it did not see pass."""
    import gen09_core.mutate.baseline as baseline_module
    from gen09_core.mutate.executor import LocalExecutor
    from gen09_core.testrun.jobs import run_job
    from tests.helpers import warm_project

    repo, env = warm_project(tmp_path, "", CHAIN)
    baseline, runs = baseline_module.run_baseline(LocalExecutor(1), functools.partial(run_job, env), str(repo),
                                                  str(tmp_path / "jobs"), 120, 2048)
    assert [test.split("::")[-1] for test in baseline.stable] == ["test_other"]
    assert len(baseline.order_dependent) == 6 and len(runs) == 2 + 7  # the 7th run of them loses none
    monkeypatch.setattr(baseline_module, "SELECTED_ROUNDS", 3)
    with pytest.raises(baseline_module.SourceIneligible, match="do not settle.*test_link_3 first"):
        baseline_module.run_baseline(LocalExecutor(1), functools.partial(run_job, env), str(repo),
                                     str(tmp_path / "jobs-3"), 120, 2048)
