"""mutate.validate: changed lines, test selection and the F2P/P2P judges."""

import sys
import textwrap

from gen09_core.mutate.baseline import derive_baseline
from gen09_core.mutate.validate import branch_lines, changed_lines, judge, judge_same_run, select_tests
from gen09_core.testrun.jobs import TestEnv, TestJob, TestRun, install_plugin, run_job
from gen09_core.testrun.warm import WarmRunner
from tests.helpers import repo_with_tests


def test_judge_needs_a_failing_and_a_passing_test():
    first = TestRun("a", "ok", {"t::a": "passed", "t::b": "passed"})
    base = derive_baseline(first, first)
    kill = TestRun("m", "ok", {"t::a": "failed"}, {"t::a": {"message": "boom", "trace": []}})
    verdict = judge(base, kill, ("t::a",), "coverage")
    assert verdict.status == "valid"
    assert verdict.fail_to_pass == ("t::a",) and verdict.pass_to_pass == ("t::b",)
    assert judge(base, TestRun("m", "ok", {"t::a": "passed"}), ("t::a",), "coverage").status == "no_fail_to_pass"
    gone = TestRun("m", "ok", {})  # a test that vanished (collection error) counts as failing
    assert judge(base, gone, ("t::a", "t::b"), "full").status == "no_pass_to_pass"
    assert judge(base, TestRun("m", "timeout"), ("t::a",), "full").status == "timeout"


def test_changed_lines_are_lines_of_the_old_text():
    old = "a\nb\nc\nd\n"
    assert changed_lines(old, "a\nB\nc\nd\n") == [2]
    assert changed_lines(old, "a\nc\nd\n") == [2]
    assert changed_lines(old, "a\nd\nc\nb\n") in ([2, 3, 4], [2, 4], [2, 3])


LOADER = """\
def load(module, class_name=None):
    try:
        found = module
    except KeyError:
        raise
    if class_name:
        # by its class name
        return getattr(found, class_name)()
    else:
        return found.make()


def other(x):
    return x + 1
"""

# ctrl_invert_if as a line diff shows it: one body moved past the other, whose lines stay
# "unchanged" (Markdown 3.7's build_extension)
SWAPPED = LOADER.replace("""        # by its class name
        return getattr(found, class_name)()
    else:
        return found.make()
""", """        return found.make()
    else:
        # by its class name
        return getattr(found, class_name)()
""")


def test_a_change_to_a_statement_itself_selects_every_test_that_reached_it(runner_env, tmp_path):
    """An ``if`` whose bodies swapped places reroutes the tests of the body the diff left
    alone; they ran the ``if`` line, so they are selected (before, only the tests of the
    moved body were, and a whole-suite run found a failing test the selection had missed)."""
    repo = repo_with_tests(tmp_path, """
        from loader import load, other

        class Thing:
            def make(self):
                return "made"

            def build(self):
                return "built"

        def test_by_name():
            assert load(Thing(), "build") == "built"

        def test_by_default():
            assert load(Thing()) == "made"

        def test_other():
            assert other(1) == 2
        """)
    (repo / "loader.py").write_text(LOADER)
    pristine = run_job(runner_env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
    base = derive_baseline(pristine, pristine)
    lines = changed_lines(LOADER, SWAPPED)
    assert 6 not in lines and 6 in branch_lines(LOADER, lines)  # the ``if`` line itself
    before = select_tests(base, "loader.py", lines, "function", (1, 11))
    after = select_tests(base, "loader.py", branch_lines(LOADER, lines), "function", (1, 11))
    assert len(before) == 1  # the diff moved one body; the other body's tests were missed
    assert after == ("tests/test_it.py::test_by_default", "tests/test_it.py::test_by_name")
    run = run_job(runner_env, TestJob("m", str(repo), str(tmp_path / "jobs"), {"loader.py": SWAPPED}, after))
    assert set(run.outcomes.values()) == {"failed"}  # both selected tests fail on the mutant
    # an ``except`` line belongs to the ``try``; a body line or a header changed by itself widens nothing
    assert branch_lines(LOADER, [4]) == [2, 4]
    assert branch_lines(LOADER, [8]) == [8] and branch_lines(LOADER, [6]) == [6]
    assert branch_lines("def broken(:\n", [1]) == [1]


def test_lines_run_at_import_widen_the_selection():
    run = TestRun("b", "ok", {"t::a": "passed", "t::b": "passed"},
                  coverage={"m.py": {2: ["t::a"], 5: ["<import>", "t::a"], 9: ["t::b"]}})
    base = derive_baseline(run, run)
    assert base.import_lines == {"m.py": [5]}
    assert select_tests(base, "m.py", [2], "function", (1, 3)) == ("t::a",)
    assert select_tests(base, "m.py", [5], "function", (4, 6)) == ("t::a", "t::b")
    assert select_tests(base, "m.py", [1], "class", (1, 3)) == ("t::a",)
    # the class statement ran at import (inflect's `class UnknownClassicalModeError(Exception)`
    # without its base: no line of the class runs in a test, pytest.raises uses it)
    assert select_tests(base, "m.py", [5], "class", (5, 6)) == ("t::a", "t::b")


def test_covering_tests_run_first_and_the_rest_only_when_one_fails(runner_env, tmp_path):
    repo = repo_with_tests(tmp_path, """
        def test_a():
            pass
        def test_b():
            pass
        def test_c():
            import os
            assert os.environ.get("GEN09_FIRST")
        """)
    ids = tuple(f"tests/test_it.py::test_{n}" for n in "abc")
    quiet = run_job(runner_env, TestJob("q", str(repo), str(tmp_path / "jobs"), tests=ids, first=(ids[1],)))
    assert quiet.outcomes == {ids[1]: "passed"}  # stopped after the covering test
    base = derive_baseline(TestRun("p", "ok", dict.fromkeys(ids, "passed")),
                           TestRun("p", "ok", dict.fromkeys(ids, "passed")))
    assert judge_same_run(base, quiet, (ids[1],))[0].status == "no_fail_to_pass"
    (repo / "tests" / "test_it.py").write_text("def test_a():\n    pass\ndef test_b():\n    assert 0\n"
                                               "def test_c():\n    assert 0\n")
    loud = run_job(runner_env, TestJob("l", str(repo), str(tmp_path / "jobs"), tests=ids, first=(ids[1],)))
    assert set(loud.outcomes) == set(ids)  # went on through the whole set
    verdict, agrees = judge_same_run(base, loud, (ids[1],))
    assert verdict.status == "valid" and verdict.fail_to_pass == (ids[1], ids[2]) and agrees is False


DOCUMENTS = """
    import pytest


    class Example(pytest.Item):
        def __init__(self, *, source, **kwargs):
            super().__init__(**kwargs)
            self.source = source

        def runtest(self):
            exec(self.source, self.parent.namespace)


    class Document(pytest.File):
        def collect(self):
            self.namespace = {}
            for number, line in enumerate(self.path.read_text().splitlines(), 1):
                if line.startswith(">>> "):
                    yield Example.from_parent(self, name=f"line:{number}", source=line[4:])


    def pytest_collect_file(file_path, parent):
        if file_path.suffix == ".md":
            return Document.from_parent(parent, path=file_path)
"""


def test_a_documents_examples_run_first_after_the_examples_before_them(runner_env, tmp_path):
    # tldextract 5.4.0's README under sybil: its examples share one namespace, the first imports the
    # package; run first, the covering examples raised NameError (8 of 22 issues said so)
    repo = repo_with_tests(tmp_path, "def test_a():\n    pass\n")
    (repo / "tests" / "conftest.py").write_text(textwrap.dedent(DOCUMENTS))
    (repo / "tests" / "guide.md").write_text(">>> import math\ntext\n>>> x = 2\n>>> assert math.pi > 3\n")
    (repo / "lib.py").write_text("X = 1\n")
    doc = [f"tests/guide.md::line:{n}" for n in (1, 3, 4)]
    ids, changed = (*doc, "tests/test_it.py::test_a"), {"lib.py": "X = 2\n"}
    warm = WarmRunner(TestEnv(sys.executable, str(install_plugin(tmp_path / "plugins", warm=True))),
                      repo, tmp_path / "warm")
    try:
        for run_with in (lambda job: run_job(runner_env, job), warm):
            run = run_with(TestJob("d", str(repo), str(tmp_path / "jobs"), changed, ids, first=(doc[2],)))
            assert run.outcomes == dict.fromkeys(doc, "passed")  # in the document's order, then stopped
            run = run_with(TestJob("t", str(repo), str(tmp_path / "jobs"), changed, ids, first=(ids[3], doc[0])))
            assert run.outcomes == {ids[3]: "passed", doc[0]: "passed"}  # a module's test alone, as before
        assert run.runner == "warm"
    finally:
        warm.close()

def test_a_test_file_the_mutant_breaks_is_a_failure_of_the_covering_tests(runner_env, tmp_path):
    # pyrsistent 0.20.0: a mutant of pmap_field broke two test files' collection; the covering
    # tests that did collect passed, the run stopped early, and the 498 tests never run were
    # labelled FAIL_TO_PASS (a fresh run and the verifier pass them)
    repo = repo_with_tests(tmp_path, "def test_a():\n    pass\ndef test_b():\n    pass\n")
    (repo / "tests" / "test_other.py").write_text("import missing_after_the_mutation\n\n\ndef test_x():\n    pass\n")
    ids = ("tests/test_it.py::test_a", "tests/test_it.py::test_b", "tests/test_other.py::test_x")
    covering = (ids[1], ids[2])
    run = run_job(runner_env, TestJob("m", str(repo), str(tmp_path / "jobs"), tests=ids, first=covering))
    assert run.outcomes == {ids[0]: "passed", ids[1]: "passed"}  # went on through the whole set
    base = derive_baseline(TestRun("p", "ok", dict.fromkeys(ids, "passed")),
                           TestRun("p", "ok", dict.fromkeys(ids, "passed")))
    verdict, _ = judge_same_run(base, run, covering)
    assert verdict.status == "valid" and verdict.fail_to_pass == (ids[2],)
    assert verdict.pass_to_pass == (ids[0], ids[1])


def test_a_mutant_that_fails_every_test_says_why(tmp_path, runner_env):
    """isaacs/minimatch 10: 8 mutants broke its build (tsc's type errors), so no test reported, and
    each was "no P2P" with no word why. The run's first problem is the verdict's detail."""
    repo = repo_with_tests(tmp_path, "from lib import VALUE\n\n\ndef test_a():\n    assert VALUE == 1\n\n\n"
                                     "def test_b():\n    assert VALUE\n")
    (repo / "lib.py").write_text("VALUE = 1\n")
    pristine = run_job(runner_env, TestJob("p", str(repo), str(tmp_path / "jobs")))
    base = derive_baseline(pristine, pristine)
    mutant = run_job(runner_env, TestJob("m", str(repo), str(tmp_path / "jobs"),
                                         {"lib.py": "raise RuntimeError('broken at import')\n"}))
    verdict = judge(base, mutant, base.stable, "full")
    assert verdict.status == "no_pass_to_pass" and len(base.stable) == 2, verdict
    assert "RuntimeError: broken at import" in verdict.detail, verdict.detail
