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
