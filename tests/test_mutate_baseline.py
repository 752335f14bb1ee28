"""mutate.baseline: stable, flaky and failing tests from two pristine runs."""

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


def test_every_parametrization_of_a_flaky_test_is_flaky():
    """One racy case of a parametrized test makes all its cases flaky: the two pristine runs
    rarely catch every racy one (click's test_echo_via_pager)."""
    ids = ["t.py::test_pager[a]", "t.py::test_pager[b]", "t.py::test_pager[c]", "t.py::test_pagers", "t.py::other"]
    first = TestRun("a", "ok", dict.fromkeys(ids, "passed"))
    second = TestRun("b", "ok", {**dict.fromkeys(ids, "passed"), "t.py::test_pager[b]": "failed"})
    base = derive_baseline(first, second)
    assert base.flaky == ("t.py::test_pager[a]", "t.py::test_pager[b]", "t.py::test_pager[c]")
    assert base.stable == ("t.py::other", "t.py::test_pagers")
