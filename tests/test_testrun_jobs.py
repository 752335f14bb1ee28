"""The test-job runner on its own: outcomes from gen09's record, the time and memory limits,
per-test coverage."""

import os
import subprocess
import sys

from gen09_core.testrun.jobs import IMPORT_CONTEXT, TestJob, run_job
from tests.helpers import repo_with_tests


def test_runner_reads_outcomes_from_gen09s_record(runner_env, tmp_path):
    repo = repo_with_tests(tmp_path, """
        import pytest
        def test_ok():
            assert 1 + 1 == 2
        def test_bad():
            assert [1] == [2]
        @pytest.mark.skip
        def test_skipped():
            pass
        """)
    run = run_job(runner_env, TestJob("j1", str(repo), str(tmp_path / "jobs")))
    assert run.status == "ok"
    assert run.outcomes == {"tests/test_it.py::test_ok": "passed", "tests/test_it.py::test_bad": "failed",
                            "tests/test_it.py::test_skipped": "skipped"}
    assert "assert [1] == [2]" in run.failures["tests/test_it.py::test_bad"]["message"]
    assert not (tmp_path / "jobs" / "j1").exists()  # the job folder is removed


def test_runner_enforces_the_timeout(runner_env, tmp_path):
    repo = repo_with_tests(tmp_path, """
        import time
        def test_slow():
            time.sleep(60)
        """)
    run = run_job(runner_env, TestJob("slow", str(repo), str(tmp_path / "jobs"), timeout_sec=2))
    assert run.status == "timeout"


def test_runner_enforces_the_memory_limit(runner_env, tmp_path):
    repo = repo_with_tests(tmp_path, """
        def test_big():
            block = bytearray(2 * 1024 ** 3)
            assert block
        """)
    run = run_job(runner_env, TestJob("big", str(repo), str(tmp_path / "jobs"), memory_mb=600))
    assert run.outcomes.get("tests/test_it.py::test_big") == "failed"
    assert "MemoryError" in run.failures["tests/test_it.py::test_big"]["message"]


def test_coverage_records_which_test_ran_which_line(runner_env, tmp_path):
    repo = repo_with_tests(tmp_path, """
        from lib import double, unused
        def test_double():
            assert double(2) == 4
        """)
    (repo / "lib.py").write_text("def double(x):\n    y = x * 2\n    return y\n\n\ndef unused():\n    return 0\n")
    run = run_job(runner_env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
    assert run.coverage["lib.py"][2] == ["tests/test_it.py::test_double"]
    assert 7 not in run.coverage["lib.py"]
    assert run.coverage["lib.py"][1] == [IMPORT_CONTEXT]  # the def ran at import
    # one string per test, however many lines it ran (packaging 24.1: 1.16 million pairs, 7,779 tests)
    assert run.coverage["lib.py"][2][0] is run.coverage["lib.py"][3][0]


def test_coverage_counts_the_lines_a_tests_python_subprocess_ran_for_that_test(runner_env, tmp_path):
    # a CLI module the tests only run as `python -m cli` was never measured, so never mutated
    repo = repo_with_tests(tmp_path, """
        import os, subprocess, sys
        def test_cli():
            done = subprocess.run([sys.executable, "-m", "cli", "x"], capture_output=True, text=True)
            assert (done.stdout, done.stderr) == ("hi x chained\\n", "")  # its output is its own
        def test_other():
            assert "GEN09_COV_TEST" not in os.environ or os.environ["GEN09_COV_TEST"].endswith("test_other")
        """)
    (repo / "cli.py").write_text("import os, sys\n\n\ndef main(name):\n    print('hi', name, os.environ['SHADOWED'])\n\n\n"
                                 "if __name__ == '__main__':\n    main(sys.argv[1])\n")
    # the repository's own sitecustomize (on PYTHONPATH after gen09's) still runs in the subprocess
    (repo / "sitecustomize.py").write_text("import os\nos.environ['SHADOWED'] = 'chained'\n")
    run = run_job(runner_env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
    assert run.outcomes == {"tests/test_it.py::test_cli": "passed", "tests/test_it.py::test_other": "passed"}
    assert run.coverage["cli.py"][5] == ["tests/test_it.py::test_cli"]
    assert run.coverage["cli.py"][9] == ["tests/test_it.py::test_cli"]
    plain = run_job(runner_env, TestJob("plain", str(repo), str(tmp_path / "jobs")))
    assert plain.outcomes == run.outcomes  # measuring changed nothing the tests see


def test_memory_and_time_limits_do_not_leak_into_the_parent():
    import resource

    assert resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY or sys.platform != "linux"


def test_a_failure_keeps_its_message_and_frames_without_formatting_them(runner_env, tmp_path):
    """gen09 runs pytest with ``--tb=no`` and reads a failure's frames from the exception:
    the frames from the test's own file on, a ``__tracebackhide__`` helper left out, lines
    1-based, paths relative to the work copy; a failing setup keeps its frames too."""
    repo = repo_with_tests(tmp_path, """
        import pytest
        from calc import half

        def check(value):
            __tracebackhide__ = True
            assert value == 3

        def test_half():
            check(half(4))

        def test_raises():
            half(None)

        @pytest.fixture
        def broken():
            raise RuntimeError("no fixture")

        def test_setup(broken):
            pass
        """)
    (repo / "calc.py").write_text("def half(x):\n    return x // 2\n")
    run = run_job(runner_env, TestJob("j1", str(repo), str(tmp_path / "jobs")))
    failures = run.failures
    assert failures["tests/test_it.py::test_half"]["message"] == "assert 2 == 3"
    assert failures["tests/test_it.py::test_half"]["trace"] == [["tests/test_it.py", 10]]
    assert failures["tests/test_it.py::test_raises"]["message"].startswith("TypeError: unsupported operand")
    assert failures["tests/test_it.py::test_raises"]["trace"] == [["tests/test_it.py", 13], ["calc.py", 2]]
    assert failures["tests/test_it.py::test_setup"]["phase"] == "setup"
    assert failures["tests/test_it.py::test_setup"]["message"] == "RuntimeError: no fixture"
    assert failures["tests/test_it.py::test_setup"]["trace"] == [["tests/test_it.py", 17]]


def test_the_tests_the_repository_marks_flaky_are_noted(runner_env, tmp_path):
    # zipp 3.19.2 marks its timing test flaky for pytest-rerunfailures, which gen09 never loads
    repo = repo_with_tests(tmp_path, """
        import pytest

        @pytest.mark.flaky(reruns=3)
        def test_timing():
            pass

        @pytest.mark.flaky
        class TestSlow:
            def test_a(self):
                assert False

        def test_plain():
            pass
        """)
    run = run_job(runner_env, TestJob("j1", str(repo), str(tmp_path / "jobs")))
    assert run.status == "ok" and run.outcomes["tests/test_it.py::TestSlow::test_a"] == "failed"
    assert sorted(run.marked_flaky) == ["tests/test_it.py::TestSlow::test_a", "tests/test_it.py::test_timing"]


def test_a_crash_says_whether_gen09s_machinery_or_the_tested_code_caused_it(runner_env, tmp_path):
    from attrs import evolve

    from gen09_core.testrun.jobs import INFRASTRUCTURE

    repo = repo_with_tests(tmp_path, """
        import os, signal
        def test_ok():
            if os.environ.get("KILL_ME"):
                os.kill(os.getpid(), signal.SIGKILL)
        """)
    jobs = str(tmp_path / "jobs")
    # a mutant that breaks the conftest import ends pytest with a usage error: the code's doing
    # (marshmallow 3.21.3 and semver 3.0.2 mutants were reported as infrastructure failures)
    broken = run_job(runner_env, TestJob("conftest", str(repo), jobs,
                                         {"tests/conftest.py": "raise ImportError('broken by the mutant')\n"}))
    assert broken.status == "crash" and not broken.detail.startswith(INFRASTRUCTURE)
    assert "exit 4 (pytest usage error)" in broken.detail and "broken by the mutant" in broken.detail
    # a process that could not start, or that something else killed, is the machinery's
    missing = run_job(evolve(runner_env, python=str(tmp_path / "no-python")), TestJob("start", str(repo), jobs))
    assert missing.status == "crash" and missing.detail.startswith(f"{INFRASTRUCTURE}: could not start")
    killed = run_job(evolve(runner_env, env={"KILL_ME": "1"}), TestJob("killed", str(repo), jobs))
    assert killed.status == "crash" and killed.detail.startswith(f"{INFRASTRUCTURE}: killed from outside")


def test_a_crash_names_the_signal_and_the_test_that_ran(runner_env, tmp_path):
    # transitions 0.9.3: pygraphviz built without graphviz ended the pristine run with SIGSEGV, and the
    # error said only "crash ne 286 in _console_main …" (the tail of faulthandler's frames)
    repo = repo_with_tests(tmp_path, """
        import ctypes
        def test_first():
            pass
        def test_segfault():
            ctypes.string_at(0)
        """)
    run = run_job(runner_env, TestJob("segv", str(repo), str(tmp_path / "jobs")))
    assert run.status == "crash" and run.outcomes.get("tests/test_it.py::test_first") == "passed", run.detail
    assert run.detail.startswith("pytest exit -11 (killed by SIGSEGV, while tests/test_it.py::test_segfault ran)"), \
        run.detail


def test_a_suite_that_changes_directory_keeps_its_frames_and_coverage(runner_env, tmp_path):
    """plac 1.4.7's test module ``os.chdir``s into its own folder at import: a failure's frames and
    the coverage are still read against the work copy's root, not the folder the tests moved to
    (which gave ``test_runp.py`` for ``doc/test_runp.py``, so no issue showed its check); pytest
    itself is back in the root when the coverage is saved."""
    repo = repo_with_tests(tmp_path, """
        import os
        from calc import half

        os.chdir(os.path.dirname(os.path.abspath(__file__)))

        def test_half():
            assert half(4) == 3
        """)
    (repo / "calc.py").write_text("def half(x):\n    return x // 2\n")
    run = run_job(runner_env, TestJob("cd", str(repo), str(tmp_path / "jobs"), coverage=True))
    assert run.failures["tests/test_it.py::test_half"]["trace"] == [["tests/test_it.py", 8]]
    assert run.coverage["calc.py"][2] == ["tests/test_it.py::test_half"]


def test_a_test_that_clears_the_environment_keeps_the_runs_coverage(runner_env, tmp_path):
    """httplib2 0.22.0's proxy tests ``os.environ.clear()`` (written for ``pytest --forked``): the
    plugin read where to save the coverage from the environment at the run's end, found nothing,
    and no coverage was saved; every one of 40 mutants was uncovered."""
    repo = repo_with_tests(tmp_path, """
        import os
        from calc import half

        def test_half():
            assert half(4) == 2

        def test_no_proxy():
            os.environ.clear()
            assert half(2) == 1
        """)
    (repo / "calc.py").write_text("def half(x):\n    return x // 2\n")
    run = run_job(runner_env, TestJob("env", str(repo), str(tmp_path / "jobs"), coverage=True))
    assert run.coverage["calc.py"][2] == ["tests/test_it.py::test_half", "tests/test_it.py::test_no_proxy"]


def test_a_test_packages_helper_asserts_are_rewritten_like_its_tests(runner_env, tmp_path):
    """vulture 2.16 checks its results with ``check()`` in ``tests/__init__.py``, which pytest does
    not rewrite by itself: its failed assert said only ``AssertionError``, and 19 of 32 issues "a
    documented property of the result does not hold". gen09 has pytest rewrite the test packages'
    helper modules as well; a module of the library is left alone."""
    repo = repo_with_tests(tmp_path, """
        from calc import half
        from tests import check

        def test_half():
            check([half(4)], [3])

        def test_library():
            half(None)
        """)
    (repo / "tests" / "__init__.py").write_text("def check(got, expected):\n    assert sorted(got) == expected\n")
    (repo / "calc.py").write_text("def half(x):\n    assert x is not None\n    return x // 2\n")
    run = run_job(runner_env, TestJob("rw", str(repo), str(tmp_path / "jobs")))
    assert run.failures["tests/test_it.py::test_half"]["message"].startswith("assert [2] == [3]")
    assert run.failures["tests/test_it.py::test_library"]["message"] == "AssertionError"


def test_the_doctests_a_repositorys_own_unittest_suites_run_are_collected(runner_env, tmp_path):
    """zope.event 6.2 runs its class handlers' doctests only through ``test_suite()``'s
    ``DocTestSuite('zope.event.classhandler')``, which pytest never calls: 6 of its 7 mutants
    were uncovered. gen09 reads the suites' ``DocTestSuite`` / ``DocFileSuite`` calls and has
    its plugin collect those files' doctests (``--gen09-doctest``), run as the suite runs them
    (its ``setUp`` and globs: zope.lifecycleevent 6.0's ``handling.rst`` needs them); a name that
    is no file of the repository is left out, and a file pytest's own doctest options collect is
    not collected twice (pytest's own collection, with no ``setUp``, fails the README)."""
    from attrs import evolve

    from gen09_core.testrun.detect import detect

    repo = repo_with_tests(tmp_path, """
        import doctest
        from calc import ops as calc_ops

        def test_half():
            assert calc_ops.half(4) == 2

        def set_up(test):
            test.globs["twelve"] = 12

        def load_tests(loader, tests, pattern):
            tests.addTests(doctest.DocTestSuite(calc_ops))
            tests.addTests(doctest.DocFileSuite("../README.txt", setUp=set_up))
            return tests

        def test_suite():
            return doctest.DocTestSuite("json")  # no file of the repository
        """)
    (repo / "calc").mkdir()
    (repo / "calc" / "__init__.py").write_text("")
    (repo / "calc" / "ops.py").write_text('def half(x):\n    """\n    >>> half(10)\n    5\n    """\n'
                                          "    return x // 2\n")
    (repo / "README.txt").write_text("Halves:\n\n    >>> from calc.ops import half\n    >>> half(6)\n    3\n"
                                     "    >>> half(twelve), '__name__' in globals()\n    (6, False)\n")
    recipe = detect(repo)
    assert recipe.pytest_args == ("--gen09-doctest=README.txt::tests.test_it", "--gen09-doctest=calc/ops.py::tests.test_it")
    assert "tests/test_it.py: DocTestSuite(calc_ops)" in recipe.summary()
    env = evolve(runner_env, pytest_args=recipe.pytest_args, test_paths=recipe.test_paths)
    doctests = ("README.txt::README.txt", "calc/ops.py::calc.ops.half")
    own = {"tests/test_it.py::test_half": "passed", "tests/test_it.py::test_suite": "passed"}
    run = run_job(env, TestJob("whole", str(repo), str(tmp_path / "jobs")))
    assert run.outcomes == {**own, **dict.fromkeys(doctests, "passed")}
    broken = run_job(env, TestJob("m", str(repo), str(tmp_path / "jobs"),
                                  {"calc/ops.py": (repo / "calc" / "ops.py").read_text().replace("//", "/")}))
    assert broken.outcomes == {**own, **dict.fromkeys(doctests, "failed")}  # 5.0 and 3.0: 4 / 2 is 2 still
    both = [sys.executable, "-m", "pytest", *runner_env.pytest_options(), *recipe.pytest_args, "--doctest-modules",
            "--doctest-glob=*.txt"]
    done = subprocess.run(both, cwd=repo, env=runner_env.process_env(repo), capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1].startswith("1 failed, 3 passed"), done.stdout  # not 6: none twice
    named = [sys.executable, "-m", "pytest", *runner_env.pytest_options(), *recipe.pytest_args, "tests", "README.txt"]
    done = subprocess.run(named, cwd=repo, env=runner_env.process_env(repo), capture_output=True, text=True)
    assert done.stdout.strip().splitlines()[-1].startswith("3 passed"), done.stdout  # pytest's own, of a named file, dropped


def test_the_test_modules_a_declared_unittest_suite_runs_are_collected_with_its_doctests(runner_env, tmp_path):
    """Genshi 0.7.9 declares ``test_suite='genshi.tests.suite'``, which runs ``genshi/tests/core.py``
    and 15 more ``TestCase`` modules pytest's ``test_*.py`` misses, and each one's ``suite()`` adds
    ``DocTestSuite(Markup.__module__)``: pytest found 67 of its 832 tests. gen09 names those modules
    beside pytest's own, reads ``X.__module__``, and runs the doctests with the globs ``suite()`` gives."""
    import textwrap

    from attrs import evolve

    from gen09_core.testrun.detect import detect

    repo = tmp_path / "repo"
    files = {"setup.py": "from setuptools import setup\nsetup(name='g', test_suite='g.tests.suite')\n",
             "g/__init__.py": "", "g/core.py": 'class Markup(str):\n    """\n    >>> len(Markup("x") * twelve)\n'
                                                "    12\n    \"\"\"\n",
             "g/tests/__init__.py": "", "g/tests/helpers.py": "X = 1\n",
             "g/tests/core.py": """
                 import doctest
                 import unittest

                 from g.core import Markup


                 class MarkupTestCase(unittest.TestCase):
                     def test_str(self):
                         self.assertEqual(Markup("a"), "a")


                 def suite():
                     return doctest.DocTestSuite(Markup.__module__, extraglobs={"twelve": 12})
                 """,
             "g/tests/test_html.py": "def test_html():\n    assert True\n"}
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(textwrap.dedent(text))
    recipe = detect(repo)
    assert recipe.test_paths == ("g/tests/core.py", "g/tests/test_html.py", "g/core.py")
    assert recipe.pytest_args == ("--gen09-doctest=g/core.py::g.tests.core",)
    env = evolve(runner_env, pytest_args=recipe.pytest_args, test_paths=recipe.test_paths)
    run = run_job(env, TestJob("whole", str(repo), str(tmp_path / "jobs")))
    assert run.outcomes == {"g/tests/core.py::MarkupTestCase::test_str": "passed",
                            "g/tests/test_html.py::test_html": "passed", "g/core.py::g.core.Markup": "passed"}


def test_a_setup_cfg_pytest_section_pytest_refuses_is_read_as_options(runner_env, tmp_path):
    """Whoosh 2.7.4 keeps its pytest options in setup.cfg's ``[pytest]`` section, which pytest 4
    and later refuse to start with: no test ran ("no stable passing tests"). gen09 gives pytest no
    ini file and the section's options with ``-o``: its ``python_files`` finds the test module, its
    ``addopts`` and ``norecursedirs`` hold, an option pytest does not know is left out."""
    import textwrap

    from attrs import evolve

    from gen09_core.testrun.detect import detect

    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "stress").mkdir()
    (repo / "setup.py").write_text("from setuptools import setup\nsetup(name='w')\n")
    (repo / "setup.cfg").write_text(textwrap.dedent("""
        [wheel]
        universal = 1

        [pytest]
        addopts = -p no:doctest
        norecursedirs = .hg stress
        python_files = check_*.py
        pep8ignore =
        \t*.py E121
        """))
    (repo / "tests" / "check_it.py").write_text("def test_it():\n    assert True\n")
    (repo / "stress" / "check_load.py").write_text("def test_load():\n    assert False\n")
    recipe = detect(repo)
    assert recipe.pytest_args == ("-c", os.devnull, "--override-ini=python_files=check_*.py",
                                  "--override-ini=norecursedirs=.hg stress")
    assert recipe.addopts == "-p no:doctest"
    env = evolve(runner_env, pytest_args=recipe.pytest_args, addopts=recipe.addopts)
    run = run_job(env, TestJob("whole", str(repo), str(tmp_path / "jobs")))
    assert run.outcomes == {"tests/check_it.py::test_it": "passed"}, run.detail


def test_a_namespace_package_the_installed_project_declares_is_imported_from_the_work_copy(tmp_path):
    """zc.lockfile 3.0.post1 declares ``namespace_packages=['zc']``: installing it writes a
    ``*-nspkg.pth`` file that makes ``zc`` the installed copy's alone at start. Its modules were
    imported from site-packages, so no mutant ran and pytest refused the test module as another
    file. gen09's plugin puts the work copy's folder first; a changed module fails its test."""
    from gen09_core.testrun.jobs import TestEnv, install_plugin
    from gen09_core.testrun.venv import create_venv

    repo = tmp_path / "repo"
    (repo / "src" / "ns" / "lib").mkdir(parents=True)
    (repo / "src" / "ns" / "__init__.py").write_text("__import__('pkg_resources').declare_namespace(__name__)\n")
    (repo / "src" / "ns" / "lib" / "__init__.py").write_text("def half(x):\n    return x // 2\n")
    (repo / "src" / "ns" / "lib" / "tests.py").write_text(
        "from ns.lib import half\n\n\ndef test_half():\n    assert half(4) == 2\n")
    (repo / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='ns.lib', version='1', packages=['ns', 'ns.lib'],\n"
        "      package_dir={'': 'src'}, namespace_packages=['ns'])\n")
    python = create_venv(tmp_path / "venv")
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "pytest", "setuptools<81", str(repo)],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr
    assert list((tmp_path / "venv").glob("lib/python*/site-packages/*-nspkg.pth"))
    env = TestEnv(python, str(install_plugin(tmp_path / "plugins")), str(tmp_path / "venv"), ("src",),
                  test_paths=("src/ns/lib/tests.py",))
    test = "src/ns/lib/tests.py::test_half"
    assert run_job(env, TestJob("p", str(repo), str(tmp_path / "jobs"))).outcomes == {test: "passed"}
    changed = {"src/ns/lib/__init__.py": "def half(x):\n    return x // 3\n"}
    assert run_job(env, TestJob("m", str(repo), str(tmp_path / "jobs"), changed)).outcomes == {test: "failed"}


def test_the_tests_of_a_namespace_packages_project_are_imported_by_their_full_name(runner_env, tmp_path):
    """zope.datetime 6.0 keeps its tests in ``src/zope/datetime/tests`` and ``src/zope`` has no
    ``__init__.py`` (a PEP 420 namespace). pytest named the module ``datetime.tests.test_datetime``,
    the standard library's ``datetime`` hid it, and no test ran: "no stable passing tests". gen09
    detects the namespace and has pytest look for it; a changed module fails its test."""
    from attrs import evolve

    from gen09_core.testrun.detect import detect

    repo = tmp_path / "repo"
    tests = repo / "src" / "ns" / "json" / "tests"
    tests.mkdir(parents=True)
    (tests.parent / "__init__.py").write_text("def half(x):\n    return x // 2\n")
    (tests / "__init__.py").write_text("")
    (tests / "test_half.py").write_text("from ns.json import half\n\n\ndef test_half():\n    assert half(4) == 2\n")
    (repo / "pyproject.toml").write_text('[project]\nname = "ns.json"\nversion = "1"\n')
    recipe = detect(repo)
    assert recipe.pythonpath[0] == "src" and "src/ns: no __init__.py" in recipe.summary()
    env = evolve(runner_env, pythonpath=recipe.pythonpath, pytest_args=recipe.pytest_args)
    assert run_job(env, TestJob("whole", str(repo), str(tmp_path / "jobs"))).outcomes == {
        "src/ns/json/tests/test_half.py::test_half": "passed"}
    broken = run_job(env, TestJob("m", str(repo), str(tmp_path / "jobs"),
                                  {"src/ns/json/__init__.py": "def half(x):\n    return x\n"}))
    assert broken.outcomes == {"src/ns/json/tests/test_half.py::test_half": "failed"}
