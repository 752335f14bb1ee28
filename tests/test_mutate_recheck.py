"""The recheck stage on a real suite: a test that fails only in the recheck's pristine run
(a race two pristine runs missed) and one that fails on mutants but passes when its mutant
runs again leave every task; one that fails on mutants only when the test before it has not
run (the validation runs covering tests first; the verifier runs the file in order) fails
again when the validation run is repeated, and is PASS_TO_PASS of those tasks, as in the
verifier's order; the bundles verify. With ``limits.recheck = false`` all stay as validated."""

import json
import re
import shutil

import pytest

from tests.helpers import MUTATE_FIXTURE, run_gen09

# each stands in for a race: its outcome depends on which run it is in (a fresh job's folder)
RACES = '''
from pathlib import Path

from shop.labels import label
from shop.pricing import apply_discount, bulk_price, shipping, with_tax


def test_fails_only_in_the_recheck():
    assert not Path.cwd().name.startswith("recheck-pristine")


def test_fails_on_mutants_but_not_again():
    apply_discount(100, 10), with_tax(10), bulk_price(1, 3), shipping(2)  # covers the pricing module
    label("tea", 3), label("pot", 300)  # and the labels, which no other test checks
    assert Path.cwd().name.startswith(("baseline-", "recheck-"))


class TestInOrder:  # pathspec 0.12.1's symlink tests read what the test before them set
    def test_1_sets_up(self):
        type(self).ready = True

    def test_2_reads_it(self):
        apply_discount(100, 10), with_tax(10), bulk_price(1, 3), shipping(2)  # covers the pricing module
        assert self.ready


def test_fails_only_in_a_mutants_recheck():  # a timing failure under load (path-to-regexp 8.4.2)
    apply_discount(100, 10), with_tax(10), bulk_price(1, 3), shipping(2)  # covers the pricing module
    label("tea", 3), label("pot", 300)
    name = Path.cwd().name
    assert not name.startswith("recheck-") or name.startswith(("recheck-pristine", "recheck-order-"))


class TestStrict:  # checks the prices only after the test before it ran: in the verifier's order
    def test_1_turns_strict_on(self):
        type(self).strict = True

    def test_2_checks_when_strict(self):
        prices = apply_discount(100, 10), with_tax(10), bulk_price(1, 3), shipping(2)
        if getattr(type(self), "strict", False):
            assert prices == (90.0, 12.0, 3, 10)
'''
# pylru 1.3.3 checks its cache against random operations, unseeded: each run fails on other values
FUZZ_TEST = '''
import random

from shop.pricing import apply_discount, bulk_price, with_tax


def test_fuzzes_the_prices():
    price, percent, quantity = random.randint(10**6, 10**9), random.randint(1, 99), random.randint(1, 30)
    assert (apply_discount(price, percent), bulk_price(price, quantity), with_tax(price)) == (
        round(price * (100 - percent) / 100, 2), price * (quantity - quantity // 10), round(price * 1.2, 2))
'''
# only the races call it: a mutant of it fails no real test, only the race that fails on every mutant
LABELS = '''
def label(name, price):
    """A shelf label: the name and the price, in capitals above 100."""
    if price > 100:
        return f"{name.upper()}: {price * 1.0:.2f}"
    return f"{name}: {price + 0}"
'''
PRISTINE_RACE = "tests/check_races.py::test_fails_only_in_the_recheck"
MUTANT_RACE = "tests/check_races.py::test_fails_on_mutants_but_not_again"
IN_ORDER = "tests/check_races.py::TestInOrder::test_2_reads_it"
STRICT = "tests/check_races.py::TestStrict::test_2_checks_when_strict"
RECHECK_RACE = "tests/check_races.py::test_fails_only_in_a_mutants_recheck"
FUZZ = "tests/check_a_fuzz.py::test_fuzzes_the_prices"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("recheck")
    repo = base / "shop"
    shutil.copytree(MUTATE_FIXTURE, repo)
    (repo / "tests" / "check_races.py").write_text(RACES)
    (repo / "tests" / "check_a_fuzz.py").write_text(FUZZ_TEST)  # its file first: it is the issue's first check
    (repo / "shop" / "labels.py").write_text(LABELS)
    out = {}
    for recheck in (True, False):
        config = base / f"recheck-{recheck}.json"
        config.write_text(json.dumps({"source": {"repo": str(repo)}, "seeds": {"mutate": 3},
                                      "limits": {"max_mutants": 8, "runner": "fresh", "recheck": recheck}}))
        done = run_gen09("mutate", "--config", config, "--out", base / f"run-{recheck}")
        assert done.returncode == 0, done.stderr
        out[recheck] = base / f"run-{recheck}"
    return out


def _fail_to_pass(run) -> list:
    return [json.loads(line)["FAIL_TO_PASS"] for line in (run / "instances.jsonl").read_text().splitlines()]


def _listed(run) -> set:
    lines = (run / "instances.jsonl").read_text().splitlines()
    return {t for line in lines for r in [json.loads(line)] for t in r["FAIL_TO_PASS"] + r["PASS_TO_PASS"]}


def test_the_recheck_takes_racy_tests_out_of_every_task(runs):
    summary = json.loads((runs[True] / "summary.json").read_text())
    assert summary["recheck"]["unreliable"] == [PRISTINE_RACE]
    assert MUTANT_RACE in summary["recheck"]["flaky_fail_to_pass"]
    assert summary["recheck"]["order_dependent_fail_to_pass"] == [IN_ORDER]
    assert IN_ORDER not in summary["recheck"]["flaky_fail_to_pass"]
    assert summary["exported"] > 0 and summary["runner_seconds"]["recheck"] > 0
    assert not _listed(runs[True]) & {PRISTINE_RACE, MUTANT_RACE}
    assert not any(IN_ORDER in tests for tests in _fail_to_pass(runs[True]))
    lines = (runs[True] / "instances.jsonl").read_text().splitlines()
    assert all(IN_ORDER in json.loads(line)["PASS_TO_PASS"] for line in lines)  # kept, as the verifier sees it
    for line in (runs[True] / "instances.jsonl").read_text().splitlines():
        assert json.loads(line)["FAIL_TO_PASS"]
    # run first among the covering tests it passed; in the verifier's order it fails on a price mutant
    assert summary["recheck"]["relabelled"] > 0
    assert any(STRICT in tests for tests in _fail_to_pass(runs[True]))
    assert not any(STRICT in tests for tests in _fail_to_pass(runs[False]))
    # a test that failed once, in the recheck, joins a task's FAIL_TO_PASS only beside one that failed twice
    assert any(RECHECK_RACE in tests for tests in _fail_to_pass(runs[True]))
    assert all(set(tests) - {RECHECK_RACE} for tests in _fail_to_pass(runs[True]))
    reasons = [f["reason"] for f in summary["failures"].get("confirm_rejected", [])]
    assert all(r.startswith("recheck: ") for r in reasons)


def test_without_the_recheck_the_racy_tests_stay(runs):
    assert {PRISTINE_RACE, MUTANT_RACE, IN_ORDER} <= _listed(runs[False])
    assert any(IN_ORDER in tests for tests in _fail_to_pass(runs[False]))  # in the validation's order it failed
    assert json.loads((runs[False] / "summary.json").read_text())["recheck"] == {}


def test_values_a_random_input_changes_are_not_in_the_issue_text(runs):
    fuzzed = [json.loads(line) for line in (runs[True] / "instances.jsonl").read_text().splitlines()]
    texts = [r["problem_statement"] for r in fuzzed if FUZZ in r["FAIL_TO_PASS"]]
    assert any("the values it reports differ from run to run" in text for text in texts), texts
    assert not any(re.search(r"\d{6}", text) for text in texts)  # no price the test drew


def test_rechecked_bundles_verify(runs):
    done = run_gen09("verify", runs[True], "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"] == report["total"] > 0, done.stdout[-2000:]
