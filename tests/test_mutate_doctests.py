"""A package whose modules carry doctests (run with ``--doctest-modules``, as inflect does):
its source modules are code to mutate, not test files."""

import json
import sys
import textwrap

from gen09_core.mutate.mutants import files_with_tests
from gen09_core.mutate.pipeline import run
from tests.helpers import run_gen09

LIB = textwrap.dedent('''
    """Small numbers.

    >>> double(2)
    4
    """


    def double(x):
        """Twice ``x``.

        >>> double(3)
        6
        """
        return x * 2


    def is_even(n):
        return n % 2 == 0
''')

TESTS = textwrap.dedent('''
    from numbers_lib import double, is_even


    def test_double():
        assert double(5) == 10


    def test_even():
        assert is_even(4) and not is_even(3)
''')


def test_doctest_ids_do_not_make_a_source_module_a_test_file():
    ids = ["numbers_lib.py::numbers_lib", "numbers_lib.py::numbers_lib.double", "pkg/__init__.py::pkg",
           "src/pkg/mod.py::pkg.mod.Thing.method", "tests/test_it.py::test_double",
           "tests/test_it.py::TestBox::test_area[1.5-2]", "test_flat.py::test_x[a.b]"]
    assert files_with_tests(ids) == {"tests/test_it.py", "test_flat.py"}


def test_a_package_with_doctests_yields_mutants_of_its_modules(tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "numbers_lib.py").write_text(LIB)
    (repo / "tests" / "test_it.py").write_text(TESTS)
    (repo / "pytest.ini").write_text("[pytest]\naddopts = --doctest-modules\n")
    data = {"source": {"repo": str(repo)}, "seeds": {"mutate": 0},
            "limits": {"max_mutants": 6, "workers": 1}, "profiles": {"plain": {"venv": False}},
            "profile": "plain"}
    summary = run(data, tmp_path / "out")
    assert summary["mutants"] > 0, summary
    records = [json.loads(x) for x in (tmp_path / "out" / "instances.jsonl").read_text().splitlines()]
    assert records and all(r["entity"].startswith("numbers_lib.") or "numbers_lib" in r["patch"] for r in records)
    assert any(t.startswith("numbers_lib.py::") for r in records for t in r["FAIL_TO_PASS"] + r["PASS_TO_PASS"])
    # the mutated module holds tests (its doctests), yet ships mutated and is never restored
    # by the verifier: every nop scores 0 (it scored 1 when test.sh put the pristine module back)
    for runner in ("warm", "fresh"):
        done = run_gen09("verify", tmp_path / "out", "--json", "--python", sys.executable, "--runner", runner)
        report = json.loads(done.stdout)
        assert done.returncode == 0 and report["ok"] == report["total"] == len(records), done.stdout[-3000:]


def test_a_repository_whose_only_tests_are_its_doctests_runs_them_with_no_configuration(tmp_path):
    """sexpdata 1.0.2's sdist ships no test file, and its one module holds 74 doctest examples:
    gen09 stopped ("no stable passing tests ... ships its tests"). Detected, the doctests run
    (``--doctest-modules``), in validation and in every bundle's verifier."""
    from gen09_core.testrun.detect import detect

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "numbers_lib.py").write_text(LIB + textwrap.dedent('''

        def halve(x):
            """Half of ``x``.

            >>> halve(6)
            3.0
            >>> halve(1)
            0.5
            """
            return x / 2
    '''))
    (repo / "setup.py").write_text('"""Example: >>> setup()"""\n')  # not a module of the package
    recipe = detect(repo)
    assert recipe.pytest_args == ("--doctest-modules",)
    assert "run the doctests of its modules (--doctest-modules) (no test file; doctest examples in " \
           "numbers_lib.py)" in recipe.summary()
    (repo / "tests").mkdir()
    (repo / "tests" / "test_it.py").write_text(TESTS)  # a test file: its tests run as they are
    assert detect(repo).pytest_args == ()
    (repo / "tests" / "test_it.py").unlink()
    data = {"source": {"repo": str(repo)}, "seeds": {"mutate": 0},
            "limits": {"max_mutants": 6, "workers": 1}, "profiles": {"plain": {"venv": False}},
            "profile": "plain"}
    summary = run(data, tmp_path / "out")
    records = [json.loads(x) for x in (tmp_path / "out" / "instances.jsonl").read_text().splitlines()]
    assert records and all(t.startswith("numbers_lib.py::") for r in records for t in r["FAIL_TO_PASS"]), summary
    done = run_gen09("verify", tmp_path / "out", "--json", "--python", sys.executable)
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"] == report["total"] == len(records), done.stdout[-3000:]


def test_a_mutant_that_fails_the_only_doctest_says_why_in_words(tmp_path):
    """easydict 1.14: its one docstring holds all 91 examples, so a mutant fails the one test
    there is and has no PASS_TO_PASS; the reason read "016 ", the first line of pytest's
    numbered listing of the docstring. It says what the example printed or raised."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "one.py").write_text(textwrap.dedent('''
        """Numbers.

        >>> double(2)
        4
        >>> double(5) + 1
        11
        """


        def double(x):
            if x > 100:
                raise ValueError("too big")
            return x * 2
    '''))
    data = {"source": {"repo": str(repo)}, "seeds": {"mutate": 0},
            "limits": {"max_mutants": 6, "workers": 1}, "profiles": {"plain": {"venv": False}},
            "profile": "plain"}
    summary = run(data, tmp_path / "out")
    reasons = [row["reason"] for row in summary["failures"]["no_pass_to_pass"]]
    assert reasons, summary
    for reason in reasons:
        assert reason.startswith(("a result is `", "the example raises `", "part of a result")), reasons


def test_a_suite_whose_only_doctest_fails_names_it_and_what_it_printed(tmp_path):
    """commonmark 0.9.1: its one doctest documents ``hello`` and the code prints ``hello!``; the
    run stopped with "1 failing or skipped" and no word of which test or why."""
    import pytest

    from gen09_core.mutate.baseline import SourceIneligible

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "one.py").write_text('def shout(text):\n    """\n    >>> shout("hi")\n    \'HI\'\n    """\n'
                                 '    return text.upper() + "!"\n')
    data = {"source": {"repo": str(repo)}, "seeds": {"mutate": 0}, "limits": {"max_mutants": 2, "workers": 1},
            "profiles": {"plain": {"venv": False}}, "profile": "plain"}
    with pytest.raises(SourceIneligible) as stopped:
        run(data, tmp_path / "out")
    assert "(1 failing or skipped, 0 flaky)" in str(stopped.value)
    assert "The first failing test: one.py::one.shout: a result is `'HI!'` where `'HI'` is expected. " \
           "Detected: " in str(stopped.value), str(stopped.value)
