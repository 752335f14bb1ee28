"""A pristine suite that pytest can only partly collect (pycodestyle 2.12.1's sdist: ten of
its eleven test files import a ``testing`` package the sdist leaves out) still makes tasks
from what runs, and says so: the files are listed in ``summary.json`` and the run warns."""

import json
import shutil

from tests.helpers import MUTATE_FIXTURE, mutate_fixture_copy


def test_test_files_pytest_cannot_collect_are_listed_and_warned_of(tmp_path):
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    for name in ("check_broken_a.py", "check_broken_b.py"):
        (repo / "tests" / name).write_text("from testing.support import cases\n\n\ndef test_x():\n    pass\n")
    out, done = mutate_fixture_copy(tmp_path, repo, max_mutants=4)
    assert done.returncode == 0, done.stderr
    baseline = json.loads(done.stdout)["baseline"]
    assert baseline["uncollected"] == ["tests/check_broken_a.py", "tests/check_broken_b.py"]
    assert baseline["stable"] > 0
    warning = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and "could not collect 2 test file(s)" in warning[0], done.stderr
    assert "No module named 'testing'" in warning[0]
    # a stage's start is said too (pydash 8.0.3's suite runs mypy: its baseline took minutes)
    lines = done.stderr.splitlines()
    started = lines.index("gen09 mutate: baseline started the whole pristine suite, twice")
    assert started < lines.index("gen09 mutate: baseline done")
    # and how many tests each pristine run finished (a 26,854-test suite runs for minutes)
    counts = [line for line in lines if line.startswith("gen09 mutate: baseline ") and "tests (baseline-" in line]
    last = {line.split()[-1]: line.split()[3:6] for line in counts}  # each run's last line: its end
    assert {"(baseline-1)", "(baseline-2)"} <= set(last), counts
    finished, _, total = last["(baseline-1)"]
    assert finished == total and int(total) > 0


def test_a_pristine_suite_that_mostly_fails_is_warned_of(tmp_path):
    # async-timeout 4.0.3 without pytest-asyncio: 32 of 33 tests failed, and the run exited 1
    # with 0 tasks and no word on stderr
    repo = tmp_path / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "tests" / "check_needs.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('n', range(40))\ndef test_needs(n):\n"
        "    import missing_dependency  # noqa: F401\n")
    out, done = mutate_fixture_copy(tmp_path, repo, max_mutants=2)
    baseline = json.loads(done.stdout)["baseline"]
    failing, total = baseline["failing"], baseline["failing"] + baseline["stable"] + len(baseline["flaky"])
    assert failing >= 40 and baseline["first_failure"].startswith("tests/check_"), baseline
    warning = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and f"{failing} of the pristine suite's {total} tests fail or are skipped" \
        in warning[0], done.stderr
    assert f"(first: {baseline['first_failure']})" in warning[0]


def test_a_fully_collected_passing_suite_warns_of_nothing(tmp_path):
    from gen09_core.cli.mutate import baseline_warnings

    assert baseline_warnings({"uncollected": [], "collection_errors": [], "failing": 1, "stable": 9,
                              "first_failure": "t.py::test_x: skipped"}) == []
