"""The one test-outcome reader, on real pytest runs through gen09's plugin: subtests, xfail,
xpass, skips, setup/teardown errors, reruns, and node ids that must round-trip exactly."""

import json
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gen09_core.testrun import outcomes
from gen09_core.testrun.jobs import TestEnv, TestJob, install_plugin, run_job

SUITE = '''
import unittest
import pytest


class Units(unittest.TestCase):
    def test_sub_ok(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(i, i)

    def test_sub_bad(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertEqual(i, 1)


def test_fixture_subtests(subtests):
    for i in range(2):
        with subtests.test(i=i):
            assert i < 1


def test_fixture_subtests_ok(subtests):
    with subtests.test():
        assert True


@pytest.mark.xfail
def test_xfailed():
    assert 0


@pytest.mark.xfail
def test_xpassed():
    pass


@pytest.mark.xfail(strict=True)
def test_xpassed_strict():
    pass


def test_skipped():
    pytest.skip("not here")


@pytest.fixture
def broken_setup():
    raise RuntimeError("setup boom")


@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown boom")


def test_setup_error(broken_setup):
    pass


def test_teardown_error(broken_teardown):
    pass


def test_plain_failure():
    assert [1] == [2]


@pytest.mark.parametrize("value", ["ff::aa:1::2", "a/b/c", "with space", "é ü ß", "T[::-1]", "x" * 300])
def test_ids(value):
    assert value


class TestOuter:
    class TestInner:
        def test_nested(self):
            pass
'''

EXPECTED = {
    "tests/test_it.py::Units::test_sub_ok": "passed",
    "tests/test_it.py::Units::test_sub_bad": "failed",
    "tests/test_it.py::test_fixture_subtests": "failed",
    "tests/test_it.py::test_fixture_subtests_ok": "passed",
    "tests/test_it.py::test_xfailed": "xfailed",
    "tests/test_it.py::test_xpassed": "xpassed",
    "tests/test_it.py::test_xpassed_strict": "failed",
    "tests/test_it.py::test_skipped": "skipped",
    "tests/test_it.py::test_setup_error": "error",
    "tests/test_it.py::test_teardown_error": "error",
    "tests/test_it.py::test_plain_failure": "failed",
    "tests/test_it.py::TestOuter::TestInner::test_nested": "passed",
}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return TestEnv(sys.executable, str(install_plugin(tmp_path_factory.mktemp("plugins"))))


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("repo")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_it.py").write_text(SUITE, encoding="utf-8")
    return repo


@pytest.fixture(scope="module")
def whole(env, repo, tmp_path_factory):
    return run_job(env, TestJob("all", str(repo), str(tmp_path_factory.mktemp("jobs"))))


def test_outcome_rules_on_a_real_suite(whole):
    assert whole.status == "ok"
    for test_id, outcome in EXPECTED.items():
        assert whole.outcomes[test_id] == outcome, test_id
    assert "teardown boom" in whole.failures["tests/test_it.py::test_teardown_error"]["message"]
    assert whole.failures["tests/test_it.py::test_setup_error"]["phase"] == "setup"
    assert "1 != 1" not in whole.failures["tests/test_it.py::Units::test_sub_bad"]["message"]


def test_every_collected_id_round_trips_through_selection(env, repo, whole, tmp_path):
    """The ids pytest reported select exactly those tests again (ids with ``::`` or ``/``
    inside parameters, spaces, non-ASCII, nested classes, 300-character parameters)."""
    ids = sorted(t for t in whole.outcomes if "test_ids[" in t or "Nested" in t or "TestInner" in t)
    assert len(ids) == 7 and any("ff::aa:1::2" in t for t in ids) and any("a/b/c" in t for t in ids)
    again = run_job(env, TestJob("sel", str(repo), str(tmp_path / "jobs"), tests=tuple(ids)))
    assert again.status == "ok"
    assert sorted(again.outcomes) == ids
    assert set(again.outcomes.values()) == {"passed"}


def test_selection_of_an_unknown_id_reports_it_missing(env, repo, tmp_path):
    ids = ("tests/test_it.py::test_plain_failure", "tests/test_it.py::test_does_not_exist")
    run = run_job(env, TestJob("unknown", str(repo), str(tmp_path / "jobs"), tests=ids))
    assert run.outcomes == {"tests/test_it.py::test_plain_failure": "failed"}


def test_a_rerun_keeps_the_last_run(tmp_path):
    record = tmp_path / "r.jsonl"
    phases = [("setup", "passed"), ("call", "failed"), ("teardown", "passed"),
              ("setup", "passed"), ("call", "passed"), ("teardown", "passed")]
    lines = [{"kind": "phase", "id": "t.py::a", "when": w, "outcome": o} for w, o in phases]
    record.write_text("".join(json.dumps(line) + "\n" for line in lines) + '{"kind": "finish"', encoding="utf-8")
    read = outcomes.read(record)
    assert read.outcome("t.py::a") == "passed"
    assert not read.finished  # the torn last line (a killed run) is ignored
    assert read.outcome("t.py::b") == outcomes.MISSING


def test_grader_script_runs_standalone_and_agrees(whole, env, repo, tmp_path):
    """The bundle's grader is the same module, run as a script with nothing but the
    standard library: it gives reward 1 exactly when every expected id passed."""
    plugin_dir = tmp_path / "runner"
    install_plugin(plugin_dir)
    record = tmp_path / "outcomes.jsonl"
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "gen09_pytest", "-q", "-p", "no:cacheprovider",
                          str(repo / "tests" / "test_it.py")], cwd=repo, capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(plugin_dir),
                              "GEN09_OUTCOMES": str(record)})
    assert record.exists(), run.stdout + run.stderr
    passing = sorted(t for t, o in whole.outcomes.items() if o == "passed")
    for expected_ids, reward in ((passing, "1"), (passing + ["tests/test_it.py::test_xpassed"], "0"),
                                 (passing + ["tests/test_it.py::nope"], "0")):
        spec = tmp_path / "expected.json"
        spec.write_text(json.dumps({"FAIL_TO_PASS": expected_ids[:1], "PASS_TO_PASS": expected_ids[1:]}))
        done = subprocess.run([sys.executable, "-I", str(plugin_dir / "gen09_outcomes.py"), "grade",
                               str(record), str(spec)], capture_output=True, text=True)
        assert done.stdout.strip() == reward, done.stderr
        in_process = outcomes.grade(outcomes.read(record), set(expected_ids))[0]
        assert str(in_process) == reward


def test_repository_coverage_settings_and_filterwarnings_cannot_break_coverage(env, tmp_path):
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "lib.py").write_text("import warnings\n\n\ndef double(x):\n    return x * 2\n")
    (repo / "tests" / "test_lib.py").write_text("from lib import double\n\n\ndef test_double():\n"
                                               "    assert double(2) == 4\n")
    (repo / ".coveragerc").write_text("[run]\nparallel = true\nsource = nowhere\nbranch = true\n")
    (repo / "pytest.ini").write_text("[pytest]\nfilterwarnings =\n    error\n")
    run = run_job(env, TestJob("cov", str(repo), str(tmp_path / "jobs"), coverage=True))
    assert run.status == "ok", run.detail
    assert run.outcomes == {"tests/test_lib.py::test_double": "passed"}
    assert run.coverage["lib.py"][5] == ["tests/test_lib.py::test_double"]


def test_the_runner_kills_what_a_timed_out_test_started(env, tmp_path):
    """A timed-out run's whole process group is killed: no child survives."""
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    pid_file = tmp_path / "child.pid"
    (repo / "tests" / "test_hang.py").write_text(textwrap.dedent(f"""
        import subprocess, time
        def test_hang():
            child = subprocess.Popen(["sleep", "300"])
            open({str(pid_file)!r}, "w").write(str(child.pid))
            time.sleep(300)
        """))
    run = run_job(env, TestJob("hang", str(repo), str(tmp_path / "jobs"), timeout_sec=3))
    assert run.status == "timeout"
    child = int(pid_file.read_text())
    seen = subprocess.run(["ps", "-o", "stat=,args=", "-p", str(child)], capture_output=True, text=True).stdout
    state, _, args = seen.strip().partition(" ")
    # its pid may already be another process's on a busy machine (a README check beside CI saw one running)
    assert state in ("", "Z") or args.strip() != "sleep 300", f"child {child} survived the timeout ({seen})"


_IDS = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).map(
    lambda s: f"tests/test_p.py::test_x[{s}]")
_PHASE = st.tuples(st.sampled_from(["setup", "call", "teardown"]), st.sampled_from(["passed", "failed", "skipped"]),
                   st.booleans(), st.booleans())  # when, outcome, subtest, xfail


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=st.dictionaries(_IDS, st.lists(_PHASE, min_size=1, max_size=5), min_size=1, max_size=6),
       extra=st.lists(_IDS, max_size=2))
def test_every_consumer_reads_the_same_outcomes(tmp_path_factory, runs, extra):
    """mutate's judge, the bundle's grader (the shipped script, run standalone) and ab's
    verdict agree on any record: a task resolves exactly when every expected id passed."""
    from gen09_core.ab.validate import passed_tests
    from gen09_core.mutate.baseline import derive_baseline
    from gen09_core.mutate.validate import judge

    folder = tmp_path_factory.mktemp("prop")
    lines = [json.dumps({"kind": "phase", "id": test_id, "when": when, "outcome": outcome,
                         **({"subtest": "i=1"} if sub and when == "call" else {}), **({"xfail": True} if xf else {})})
             for test_id, phases in runs.items() for when, outcome, sub, xf in phases]
    (folder / "outcomes.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    record = outcomes.read(folder / "outcomes.jsonl")
    expected = set(runs) | set(extra)
    reward, _ = outcomes.grade(record, expected)
    spec = folder / "expected.json"
    spec.write_text(json.dumps({"FAIL_TO_PASS": sorted(expected)[:1], "PASS_TO_PASS": sorted(expected)[1:]}))
    runner = install_plugin(folder / "runner")
    script = subprocess.run([sys.executable, "-I", str(runner / "gen09_outcomes.py"), "grade",
                             str(folder / "outcomes.jsonl"), str(spec)], capture_output=True, text=True)
    assert script.stdout.strip() == str(reward)
    assert (passed_tests(folder) >= expected) == (reward == 1)  # ab's reading
    from gen09_core.testrun.jobs import TestRun

    everything = TestRun("b", "ok", dict.fromkeys(expected, "passed"))
    base = derive_baseline(everything, everything)
    verdict = judge(base, TestRun("m", "ok", record.outcomes()), tuple(sorted(expected)), "full")
    assert (not verdict.fail_to_pass) == (reward == 1)  # mutate's reading
    for test_id in expected:
        assert (record.outcome(test_id) == "passed") == (test_id not in verdict.fail_to_pass)


def test_selection_and_usage_errors_with_an_older_pytest(repo, tmp_path):
    """Repositories pin old pytest versions (7.x has no @argsfile): selection still runs
    exactly the chosen ids, and a pytest usage error is a crash, never "every test failed"."""
    from gen09_core.testrun.venv import create_venv

    python = create_venv(tmp_path / "venv")
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "pytest==7.4.4"], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr
    env = TestEnv(python, str(install_plugin(tmp_path / "plugins")), str(tmp_path / "venv"))
    ids = ("tests/test_it.py::test_plain_failure", "tests/test_it.py::TestOuter::TestInner::test_nested",
           "tests/test_it.py::test_ids[ff::aa:1::2]")
    run = run_job(env, TestJob("old", str(repo), str(tmp_path / "jobs"), tests=ids))
    assert run.status == "ok", run.detail
    assert run.outcomes == {ids[0]: "failed", ids[1]: "passed", ids[2]: "passed"}
    broken = TestEnv(python, env.plugin_dir, env.venv, pytest_args=("--no-such-option",))
    crashed = run_job(broken, TestJob("usage", str(repo), str(tmp_path / "jobs"), tests=ids))
    assert crashed.status == "crash" and "usage error" in crashed.detail


def test_concurrent_jobs_get_temp_folders_of_their_own(env, tmp_path):
    """Suites that write a fixed name under the temp folder (click's pager tests do) cannot
    collide when jobs run side by side."""
    from gen09_core.mutate.executor import LocalExecutor

    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "test_tmp.py").write_text(textwrap.dedent("""
        import os, tempfile, time
        def test_fixed_name():
            path = os.path.join(tempfile.gettempdir(), "gen09-fixed-name.txt")
            open(path, "w").write(str(os.getpid()))
            time.sleep(1.5)
            assert open(path).read() == str(os.getpid())
        """))
    jobs = [TestJob(f"j{i}", str(repo), str(tmp_path / "jobs")) for i in range(2)]
    runs = list(LocalExecutor(2).run(lambda job: run_job(env, job), jobs))
    assert [r.outcomes for r in runs] == [{"tests/test_tmp.py::test_fixed_name": "passed"}] * 2


def test_a_large_record_is_read_a_test_at_a_time(env, tmp_path):
    # packaging 23.2's 26,854-test runs: reading a record held every phase of every test at
    # once (peak about seven times the file's size); now one test's phases at a time
    import os
    import subprocess
    import tracemalloc

    (tmp_path / "test_many.py").write_text("import pytest\n\n\n@pytest.mark.parametrize('i', range(4000))\n"
                                           "def test_many(i):\n    assert i != 3999\n")
    record = tmp_path / "outcomes.jsonl"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "gen09_pytest", "-p", "no:cacheprovider"],
                   cwd=tmp_path, capture_output=True, check=False,
                   env={**os.environ, "PYTHONPATH": env.plugin_dir, "GEN09_OUTCOMES": str(record)})
    tracemalloc.start()
    try:
        read = outcomes.read(record)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(read.tests) == 4000 and read.finished
    assert read.outcome("test_many.py::test_many[3999]") == "failed" and len(read.passed()) == 3999
    assert peak < record.stat().st_size / 2
    # a killed run: its last test has no teardown and is decided from what it recorded
    lines = record.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"test_many.py::test_many[10]", "when": "teardown"' in line)
    record.write_text("\n".join(lines[:cut]) + "\n")
    killed = outcomes.read(record)
    assert len(killed.tests) == 11 and killed.outcome("test_many.py::test_many[10]") == "passed"
    assert not killed.finished
