"""Stage (a): intent-package assembly from the upstream-inputs file ."""

import json

import pytest

from gen09_core.errors import BadInput
from gen09_core.intent import (
    CONSTRAINT_CAP,
    MAX_DEPENDENCIES,
    REQUIREMENT_CAP,
    SIGNATURE_CAP,
    VALIDATION_CAP,
    assemble,
    load_upstream,
)
from tests.helpers import EXAMPLES, run_gen09

UPSTREAM = json.loads((EXAMPLES / "upstream.json").read_text())
LOC = UPSTREAM["localization"]


def test_the_example_package(calc_repo, registry):
    package = assemble(UPSTREAM, calc_repo, registry)
    data = package.prompt_json()
    assert set(data) == {"target", "requirement", "dependencies", "constraints", "validation"}
    assert data["target"] == {
        "entity": "calc.ops.add", "file": "calc/ops.py", "span": [6, 8],
        "code": 'def add(a, b):\n    """Return the sum of a and b."""\n    return a - b  # bug: should add\n',
    }
    assert data["requirement"].startswith("add(a, b) must return the sum of a and b.\n\nAcceptance criteria:\n")
    assert data["requirement"].endswith("- add(2, 3) == 5\n- add(-1, 1) == 0")
    assert data["dependencies"] == [{"name": "calc.ops.mean", "signature": "def mean(values)"}]
    assert data["validation"] == ["tests/test_ops.py::test_add"]
    audit = package.as_json()
    assert audit["flags"] == []
    assert audit["provenance"]["target.span"] == "localization.span"
    assert audit["provenance"]["dependencies[0]"] == "window.dependencies[0] + impact.dependencies[0]"
    assert audit["provenance"]["constraints[1]"] == "impact.obligations[1]"
    assert audit["unmapped"] == {"localization.fault": LOC["fault"]}
    assert "fault" not in json.dumps(data)  # the package has no field for it


def test_missing_parts_stay_absent(calc_repo, registry):
    package = assemble({"localization": LOC}, calc_repo, registry)
    assert set(package.prompt_json()) == {"target"}
    assert package.requirement is None and package.dependencies is None
    assert package.constraints is None and package.validation is None
    assert assemble({}, calc_repo, registry).prompt_json() == {}
    only_plan = assemble({"plan": {"requirement": "r"}}, calc_repo, registry)
    assert only_plan.prompt_json() == {"requirement": "r"} and only_plan.target is None
    empty_lists = assemble({"impact": {"obligations": []}}, calc_repo, registry)
    assert empty_lists.prompt_json() == {"constraints": []}


def test_requirement_cap_truncates_and_flags(calc_repo, registry):
    long = "x" * 1500
    package = assemble({"plan": {"requirement": long}}, calc_repo, registry)
    assert package.requirement == "x" * REQUIREMENT_CAP
    assert package.as_json()["flags"] == [
        {"field": "requirement", "action": "truncated", "length": 1500, "cap": 1024}]
    exact = assemble({"plan": {"requirement": "y" * 1024}}, calc_repo, registry)
    assert exact.flags == ()


def test_dependency_caps(calc_repo, registry):
    deps = [{"name": f"d{k}", "signature": f"def d{k}()"} for k in range(20)]
    deps[3]["signature"] = "s" * 600
    package = assemble({"window": {"dependencies": deps}}, calc_repo, registry)
    assert len(package.dependencies) == MAX_DEPENDENCIES
    assert package.dependencies[3].signature == "s" * SIGNATURE_CAP
    flags = package.as_json()["flags"]
    assert flags[0] == {"field": "dependencies.signature", "index": 3, "action": "truncated",
                        "length": 600, "cap": 512}
    excluded = [f for f in flags if f["action"] == "excluded"]
    assert [f["index"] for f in excluded] == [16, 17, 18, 19]
    assert excluded[0] == {"field": "dependencies", "index": 16, "action": "excluded", "length": 20,
                           "cap": 16, "text": "d16: def d16()"}
    assert "d16" not in json.dumps(package.prompt_json())


def test_constraint_and_validation_caps(calc_repo, registry):
    upstream = {"impact": {"obligations": ["o" * 513] + [f"o{k}" for k in range(17)]},
                "plan": {"requirement": "r", "validation": ["t" * 300, "ok"]}}
    package = assemble(upstream, calc_repo, registry)
    assert len(package.constraints) == 16 and package.constraints[0] == "o" * CONSTRAINT_CAP
    assert package.validation == ("t" * VALIDATION_CAP, "ok")
    flags = {(f.field, f.index, f.action) for f in package.flags}
    assert flags == {("constraints", 0, "truncated"), ("constraints", 16, "excluded"),
                     ("constraints", 17, "excluded"), ("validation", 0, "truncated")}


def test_impact_dependencies_merge_after_the_window(calc_repo, registry):
    upstream = {"impact": {"dependencies": ["a", {"name": "b", "signature": "def b(x)"}, "c"]},
                "window": {"dependencies": [{"name": "b"}, {"name": "z", "signature": "def z()"}]}}
    package = assemble(upstream, calc_repo, registry)
    assert package.prompt_json()["dependencies"] == [
        {"name": "b", "signature": "def b(x)"}, {"name": "z", "signature": "def z()"},
        {"name": "a"}, {"name": "c"}]
    assert dict(package.provenance)["dependencies[0]"] == \
        "window.dependencies[0] + impact.dependencies[1] (signature)"


@pytest.mark.parametrize("localization, message", [
    ({**LOC, "span": [6, 99]}, "past the end of calc/ops.py"),
    ({**LOC, "span": [6, 12]}, "is not inside calc.ops.add"),
    ({**LOC, "entity": "calc.ops.subtract"}, "calc.ops.subtract is not defined"),
    ({**LOC, "file": "calc/missing.py"}, "does not exist"),
    ({**LOC, "file": "../outside.py"}, "not a repo-relative path"),
    ({**LOC, "span": [8, 6]}, "ends before it starts"),
    ({"span": [6, 8]}, "needs $.localization.file"),
])
def test_target_mismatch_is_a_clear_error(calc_repo, registry, localization, message):
    with pytest.raises(BadInput, match=message.replace("$", r"\$").replace(".", r"\.")):
        assemble({"localization": localization}, calc_repo, registry)


def test_unknown_keys_are_rejected(calc_repo, registry):
    with pytest.raises(BadInput, match="localization"):
        assemble({"localization": {**LOC, "lines": [1, 2]}}, calc_repo, registry)
    with pytest.raises(BadInput):
        assemble({"extra": {}}, calc_repo, registry)
    with pytest.raises(BadInput):
        assemble({"version": 2}, calc_repo, registry)


def test_load_upstream_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(BadInput, match="invalid JSON at line 1"):
        load_upstream(str(bad))
    with pytest.raises(BadInput, match="no such file"):
        load_upstream(str(tmp_path / "none.json"))


def test_assembly_is_deterministic(calc_repo, registry):
    assert assemble(UPSTREAM, calc_repo, registry) == assemble(UPSTREAM, calc_repo, registry)


def test_cli_intent(calc_repo, tmp_path):
    result = run_gen09("intent", EXAMPLES / "upstream.json", "--repo", calc_repo)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["package"]["target"]["span"] == [6, 8]
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"localization": {**LOC, "span": [6, 12]}}))
    result = run_gen09("intent", wrong, "--repo", calc_repo)
    assert result.returncode == 2
    assert result.stderr.startswith("gen09: error: target span [6, 12] is not inside calc.ops.add")
    assert "Traceback" not in result.stderr
