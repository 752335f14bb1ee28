"""repo_mutate pieces on their own: the runner's limits, the executor interface, baseline
flakiness, changed lines, the issue writer and the leak scan."""

import sys
import textwrap

import pytest

from gen09_core.entities import module_name
from gen09_core.mutate.bundle import scan_snapshot
from gen09_core.mutate.executor import LocalExecutor
from gen09_core.mutate.issue import forbidden_strings, write_issue
from gen09_core.mutate.profiles import Profile
from gen09_core.mutate.validate import changed_lines, derive_baseline, judge
from gen09_core.testrun.jobs import TestEnv, TestJob, TestRun, install_plugin, run_job


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    work = tmp_path_factory.mktemp("env")
    return TestEnv(sys.executable, str(install_plugin(work / "plugins")))


def _repo(tmp_path, body):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_it.py").write_text(textwrap.dedent(body))
    return repo


def test_runner_reads_outcomes_from_gen09s_record(env, tmp_path):
    repo = _repo(tmp_path, """
        import pytest
        def test_ok():
            assert 1 + 1 == 2
        def test_bad():
            assert [1] == [2]
        @pytest.mark.skip
        def test_skipped():
            pass
        """)
    run = run_job(env, TestJob("j1", str(repo), str(tmp_path / "jobs")))
    assert run.status == "ok"
    assert run.outcomes == {"tests/test_it.py::test_ok": "passed", "tests/test_it.py::test_bad": "failed",
                            "tests/test_it.py::test_skipped": "skipped"}
    assert "assert [1] == [2]" in run.failures["tests/test_it.py::test_bad"]["message"]
    assert not (tmp_path / "jobs" / "j1").exists()  # the job folder is removed


def test_runner_enforces_the_timeout(env, tmp_path):
    repo = _repo(tmp_path, """
        import time
        def test_slow():
            time.sleep(60)
        """)
    run = run_job(env, TestJob("slow", str(repo), str(tmp_path / "jobs"), timeout_sec=2))
    assert run.status == "timeout"


def test_runner_enforces_the_memory_limit(env, tmp_path):
    repo = _repo(tmp_path, """
        def test_big():
            block = bytearray(2 * 1024 ** 3)
            assert block
        """)
    run = run_job(env, TestJob("big", str(repo), str(tmp_path / "jobs"), memory_mb=600))
    assert run.outcomes.get("tests/test_it.py::test_big") == "failed"
    assert "MemoryError" in run.failures["tests/test_it.py::test_big"]["message"]


def test_coverage_records_which_test_ran_which_line(env, tmp_path):
    repo = _repo(tmp_path, """
        from lib import double, unused
        def test_double():
            assert double(2) == 4
        """)
    (repo / "lib.py").write_text("def double(x):\n    return x * 2\n\n\ndef unused():\n    return 0\n")
    run = run_job(env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
    assert run.coverage["lib.py"][2] == ["tests/test_it.py::test_double"]
    assert 6 not in run.coverage["lib.py"]


class RecordingExecutor:
    """A stand-in for a distributed engine: runs jobs in reverse order, records them."""

    def __init__(self):
        self.jobs = []

    def run(self, fn, jobs):
        jobs = list(jobs)
        self.jobs.extend(jobs)
        for job in reversed(jobs):
            yield fn(job)


def test_executors_share_one_interface():
    assert sorted(LocalExecutor(2).run(lambda j: j * 2, [1, 2, 3])) == [2, 4, 6]
    assert list(LocalExecutor(1).run(lambda j: j, [3, 1])) == [3, 1]
    rec = RecordingExecutor()
    assert list(rec.run(str, [1, 2])) == ["2", "1"] and rec.jobs == [1, 2]


def test_pipeline_runs_through_a_plugged_in_executor(tmp_path):
    from gen09_core.mutate.pipeline import run
    from tests.test_mutate_e2e import FIXTURE

    rec = RecordingExecutor()
    summary = run({"source": {"repo": str(FIXTURE)}, "limits": {"max_mutants": 2}, "seeds": {"mutate": 5}},
                  tmp_path / "out", executor=rec)
    assert [j.job_id for j in rec.jobs[:2]] == ["baseline-1", "baseline-2"]
    assert len(rec.jobs) >= 2 + min(1, summary["mutants"])
    assert summary["mutants"] == 2


def test_flaky_tests_are_those_whose_outcome_differs():
    first = TestRun("a", "ok", {"t::a": "passed", "t::b": "passed", "t::c": "failed", "t::d": "passed"})
    second = TestRun("b", "ok", {"t::a": "passed", "t::b": "failed", "t::c": "failed"},
                     coverage={"m.py": {3: ["t::a", "t::b"]}})
    base = derive_baseline(first, second)
    assert base.stable == ("t::a",)
    assert base.flaky == ("t::b", "t::d")
    assert base.failing == ("t::c",)
    assert base.coverage == {"m.py": {3: ["t::a"]}}


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


def test_issue_is_symptom_based(tmp_path):
    repo = tmp_path
    (repo / "tests").mkdir()
    (repo / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add_small():\n"
                                                  "    assert add(2, 3) == 5\n")
    failures = {"tests/test_calc.py::test_add_small": {
        "message": "AssertionError: assert -1 == 5\n +  where -1 = add(2, 3)",
        "trace": [["tests/test_calc.py", 5], ["calc/ops.py", 2]]}}
    diff = "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a + b\n+    return a - b\n"
    text = write_issue("calc.ops", failures, ["tests/test_calc.py::test_add_small"],
                       ["tests/test_calc.py::test_add_small", "tests/test_calc.py::test_other"], diff, repo)
    assert "`add(2, 3)` returns `-1`, but `5` is expected." in text
    assert "assert add(2, 3) == 5" in text
    for forbidden in ("test_add_small", "test_calc", "pytest", "return a - b", "return a + b", "ops.py"):
        assert forbidden not in text
    assert text == write_issue("calc.ops", failures, ["tests/test_calc.py::test_add_small"],
                               ["tests/test_calc.py::test_add_small"], diff, repo)


def test_issue_quotes_the_whole_failing_statement(tmp_path):
    (tmp_path / "tests").mkdir()
    source = ("from glom import glom\n\n\ndef test_nested():\n    assert glom(\n        {'a': {'b': 1}},\n"
              "        'a.b',\n        default=None,\n        skip_exc=KeyError,\n        scope=None,\n"
              "        glom_debug=False,\n    ) == 2\n")
    (tmp_path / "tests" / "test_g.py").write_text(source)
    failures = {"tests/test_g.py::test_nested": {"message": "assert 1 == 2", "trace": [["tests/test_g.py", 5]]}}
    text = write_issue("glom.core", failures, ["tests/test_g.py::test_nested"], [], "", tmp_path)
    assert "   assert glom(\n       {'a': {'b': 1}},\n       'a.b',\n       default=None," in text
    assert "       glom_debug=False,\n   ) == 2" in text
    assert "a result is `1` where `2` is expected" in text


def test_a_long_statement_is_cut_at_a_token_boundary():
    from gen09_core.mutate.issue import cut_at_token

    text = "assert f(" + ", ".join(f"'item{i}'" for i in range(200)) + ") == 1"
    cut = cut_at_token(text, 100)
    assert len(cut) <= 104 and cut.endswith(" ...")
    assert cut[:-4].endswith(("'", ",")) and cut[:-4] == text[:len(cut) - 4]
    assert cut_at_token("x == 1", 100) == "x == 1"


def test_unittest_assertions_are_failed_checks_not_exceptions(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_u.py").write_text("import unittest\nfrom m import f\n\n\nclass T(unittest.TestCase):\n"
                                                   "    def test_f(self):\n        self.assertEqual(f(5.5), -0.5)\n")
    failures = {"tests/test_u.py::T::test_f": {"message": "AssertionError: 5.5 != -0.5",
                                               "trace": [["tests/test_u.py", 7]]}}
    text = write_issue("m", failures, ["tests/test_u.py::T::test_f"], [], "", tmp_path)
    assert "self.assertEqual(f(5.5), -0.5)" in text
    assert "the check reports `5.5 != -0.5`" in text and "raises" not in text
    raised = {"tests/test_u.py::T::test_f": {"message": "ValueError: bad", "trace": [["tests/test_u.py", 7]]}}
    assert "It raises `ValueError: bad`." in write_issue("m", raised, list(raised), [], "", tmp_path)


def test_issue_drops_lines_naming_tests(tmp_path):
    failures = {"t/test_x.py::test_explodes": {"message": "RuntimeError: test_explodes broke", "trace": []}}
    text = write_issue("pkg", failures, ["t/test_x.py::test_explodes"], [], "", tmp_path)
    assert "test_explodes" not in text and "Several documented behaviours" in text
    assert module_name("src/pkg/__init__.py") == "pkg"
    assert "test_x.py" in forbidden_strings(["t/test_x.py::test_explodes"], "")


def test_leak_scan_finds_every_kind_of_trace(tmp_path):
    snap = tmp_path / "snap"
    (snap / ".git").mkdir(parents=True)
    (snap / "pkg" / "__pycache__").mkdir(parents=True)
    (snap / "pkg" / "mod.py").write_text("def f():\n    return 2\n")
    (snap / "pkg" / "mod.py.orig").write_text("def f():\n    return 1\n")
    (snap / "pkg" / "copy.txt").write_text("notes: def f():\n    return 1\n")
    (snap / "tests").mkdir()
    (snap / "tests" / "test_mod.py").write_text("x = 1\n")
    (snap / ".env").write_text("TOKEN=1\n")
    (snap / "key.txt").write_text("-----BEGIN RSA PRIVATE KEY-----\n")
    problems = scan_snapshot(snap, {"pkg/mod.py": "def f():\n    return 1\n"},
                             ["def f():\n    return 1\n"], ["tests/test_mod.py"])
    joined = "\n".join(problems)
    for needle in (".git: VCS", "__pycache__: VCS", "mod.py.orig: backup", "identical to the pristine",
                   "copy.txt: contains the pristine", "tests/test_mod.py: hidden", ".env: credential",
                   "key.txt: credential"):
        assert needle in joined, needle


def test_memory_and_time_limits_do_not_leak_into_the_parent():
    import resource

    assert resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY or sys.platform != "linux"


def test_profile_from_config_overrides_fields():
    from gen09_core.mutate.config import ProfileSpec

    spec = ProfileSpec(install=("echo hi",), pythonpath=("src",))
    profile = Profile("python-pytest").with_spec("mine", spec)
    assert profile.name == "mine" and profile.install == ("echo hi",) and profile.pythonpath == ("src",)
    assert profile.plugins is None and profile.base_image is None  # left to detection


def test_a_second_recipe_arrives_through_the_hook(tmp_path):
    from attrs import frozen

    from gen09_core import hookimpl
    from gen09_core.errors import PluginError
    from gen09_core.mutate import profiles, recipes
    from gen09_core.mutate.pipeline import prepare, run
    from gen09_core.plugins import make_registry
    from tests.test_mutate_e2e import FIXTURE

    @frozen
    class Options:
        level: int = 1

    @frozen
    class Echo:
        name: str = "echo"
        version: str = "0"
        options: type = Options

        def check(self, options, registry):
            pass

        def run(self, ctx):
            return {"exported": 0, "level": ctx.options.level, "profile": ctx.profile.name}

    class Plugin:
        @hookimpl
        def gen09_recipes(self):
            return [Echo()]

    registry = make_registry(extra=[("core:mutate.recipes", recipes), ("core:mutate.profiles", profiles),
                                    ("echo", Plugin())])
    data = {"pipeline": {"recipe": "echo"}, "source": {"repo": str(FIXTURE)}, "recipe": {"echo": {"level": 3}}}
    recipe, config, options, profile, _, detected = prepare(data, tmp_path, registry=registry)
    assert recipe.name == "echo" and options.level == 3 and config.recipe == {"echo": {"level": 3}}

    class Twin:
        @hookimpl
        def gen09_recipes(self):
            from gen09_core.mutate.recipes.swe_smith import RECIPE

            return [RECIPE]

    clash = make_registry(extra=[("core:mutate.recipes", recipes), ("twin", Twin())])
    with pytest.raises(PluginError, match="offered by two plugins"):
        recipes.known_recipes(clash)
    assert callable(run)


def test_contrast_failure_classes():
    from gen09_core.mutate.verify import Contrast

    assert Contrast("b", 0.0, 1.0, True, 1.0).failure_class is None
    assert Contrast("b", 0.0, 0.0, True, 1.0).failure_class == "oracle"
    assert Contrast("b", 1.0, 1.0, True, 1.0).failure_class == "verifier"
    assert Contrast("b", 0.0, 1.0, False, 1.0).failure_class == "verifier"


def test_lines_run_at_import_widen_the_selection():
    from gen09_core.mutate.validate import select_tests

    run = TestRun("b", "ok", {"t::a": "passed", "t::b": "passed"},
                  coverage={"m.py": {2: ["t::a"], 5: ["<import>", "t::a"], 9: ["t::b"]}})
    base = derive_baseline(run, run)
    assert base.import_lines == {"m.py": [5]}
    assert select_tests(base, "m.py", [2], "function", (1, 3)) == ("t::a",)
    assert select_tests(base, "m.py", [5], "function", (4, 6)) == ("t::a", "t::b")
    assert select_tests(base, "m.py", [1], "class", (1, 3)) == ("t::a",)


def test_covering_tests_run_first_and_the_rest_only_when_one_fails(env, tmp_path):
    from gen09_core.mutate.validate import judge_same_run

    repo = _repo(tmp_path, """
        def test_a():
            pass
        def test_b():
            pass
        def test_c():
            import os
            assert os.environ.get("GEN09_FIRST")
        """)
    ids = tuple(f"tests/test_it.py::test_{n}" for n in "abc")
    quiet = run_job(env, TestJob("q", str(repo), str(tmp_path / "jobs"), tests=ids, first=(ids[1],)))
    assert quiet.outcomes == {ids[1]: "passed"}  # stopped after the covering test
    base = derive_baseline(TestRun("p", "ok", dict.fromkeys(ids, "passed")),
                           TestRun("p", "ok", dict.fromkeys(ids, "passed")))
    assert judge_same_run(base, quiet, (ids[1],))[0].status == "no_fail_to_pass"
    (repo / "tests" / "test_it.py").write_text("def test_a():\n    pass\ndef test_b():\n    assert 0\n"
                                               "def test_c():\n    assert 0\n")
    loud = run_job(env, TestJob("l", str(repo), str(tmp_path / "jobs"), tests=ids, first=(ids[1],)))
    assert set(loud.outcomes) == set(ids)  # went on through the whole set
    verdict, agrees = judge_same_run(base, loud, (ids[1],))
    assert verdict.status == "valid" and verdict.fail_to_pass == (ids[1], ids[2]) and agrees is False
