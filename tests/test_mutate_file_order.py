"""Every selected run gives pytest its test files in the order the repository's own
whole-suite run met them, not sorted by name: semver 3.0.2 runs ``testpaths = tests docs``,
and its docs' doctests read names a fixture of ``tests/conftest.py`` put in the shared doctest
namespace, so they passed in the whole suite and failed when ``docs/`` ran first. Here a test
under ``later/`` (sorted before ``tests/``) reads what a test under ``tests/`` set: it stays a
stable test through the recheck, the bundles list ``tests/`` first and verify, and the warm
and fresh runners make the same tasks."""

import json
import shutil

import pytest

from tests.helpers import MUTATE_FIXTURE, run_gen09

AFTER = "later/check_after.py::test_sees_what_the_suite_set"
SETS = '''
import shop
from shop.pricing import apply_discount


def test_marks_the_suite():  # as semver's tests fill the namespace its docs' doctests read
    shop.SUITE_RAN = True
    assert apply_discount(100, 10) == 90.0
'''
READS = '''
import shop
from shop.pricing import apply_discount


def test_sees_what_the_suite_set():
    assert getattr(shop, "SUITE_RAN", False)
    assert apply_discount(100, 10) == 90.0
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("order")
    repo = base / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "pytest.ini").write_text("[pytest]\npython_files = check_*.py\ntestpaths = tests later\n")
    (repo / "tests" / "check_marks.py").write_text(SETS)
    (repo / "later").mkdir()
    (repo / "later" / "check_after.py").write_text(READS)
    out = {}
    for runner in ("warm", "fresh"):
        config = base / f"{runner}.json"
        config.write_text(json.dumps({"source": {"repo": str(repo)}, "seeds": {"mutate": 3},
                                      "limits": {"max_mutants": 8, "runner": runner}}))
        done = run_gen09("mutate", "--config", config, "--out", base / runner)
        assert done.returncode == 0, done.stderr
        out[runner] = base / runner
    return out


def _instances(run) -> list[dict]:
    rows = [json.loads(line) for line in (run / "instances.jsonl").read_text().splitlines()]
    return [{k: row[k] for k in ("instance_id", "FAIL_TO_PASS", "PASS_TO_PASS")} for row in rows]


def test_a_test_that_needs_the_suites_file_order_stays_stable(runs):
    summary = json.loads((runs["warm"] / "summary.json").read_text())
    assert summary["exported"] > 0
    assert summary["recheck"]["unreliable"] == [] and summary["recheck"]["dropped"] == 0
    baseline = json.loads((runs["warm"] / "baseline.json").read_text())
    assert AFTER in baseline["stable"]
    assert baseline["file_order"][-1] == "later/check_after.py"
    assert all(AFTER in row["PASS_TO_PASS"] + row["FAIL_TO_PASS"] for row in _instances(runs["warm"]))
    for files in (runs["warm"] / "tasks").glob("*/tests/files.txt"):
        assert files.read_text().splitlines()[-1] == "later/check_after.py"


def test_warm_and_fresh_make_the_same_tasks(runs):
    assert _instances(runs["warm"]) == _instances(runs["fresh"])


def test_the_bundles_verify_in_that_order(runs):
    done = run_gen09("verify", runs["warm"], "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"] == report["total"] > 0, done.stdout[-2000:]
