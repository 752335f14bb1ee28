"""mutate.records: a mutant's record keeps only what was decided, and reads back as saved."""

import json

from attrs import evolve

from gen09_core.mutate.mutants import Mutant
from gen09_core.mutate.records import Instance, MutantRecord, MutantRecords, write_instances
from gen09_core.mutate.validate import Verdict

MUTANT = Mutant("op_swap__1234abcd", "calc/ops.py", "calc.ops.add", "function", (1, 2), "op_swap", 3,
                "def add(a, b):\n    return a - b\n", "--- a/calc/ops.py\n+++ b/calc/ops.py\n")


def test_a_record_holds_the_mutant_without_its_text_and_only_decided_fields(tmp_path):
    records = MutantRecords(tmp_path / "mutants")
    verdict = Verdict("uncovered", detail="no stable test runs lines [2]")
    records.save(MUTANT.mutant_id, evolve(records.start(MUTANT), verdict=verdict))
    data = json.loads((tmp_path / "mutants" / f"{MUTANT.mutant_id}.json").read_text())
    assert sorted(data) == ["mutant", "verdict"]
    assert "text" not in data["mutant"] and data["mutant"]["span"] == [1, 2]
    assert data["verdict"]["status"] == "uncovered" and data["verdict"]["fail_to_pass"] == []
    assert records.load(MUTANT.mutant_id) == MutantRecord(data["mutant"], verdict)
    assert records.load("missing") is None


def test_a_confirmed_record_reads_back_with_typed_verdicts(tmp_path):
    records = MutantRecords(tmp_path)
    valid = Verdict("valid", ("t::a",), ("t::b",), ("t::a",), 1.5, failures={"t::a": {"message": "boom"}})
    record = MutantRecord(MutantRecord.of(MUTANT).mutant, valid, valid, True, "same run")
    records.save("m", record)
    text = (tmp_path / "m.json").read_text()
    assert text.startswith("{\n \"confirmation\": \"same run\",\n \"confirmed\": {") and text.endswith("}\n")
    assert records.load("m") == MutantRecord(json.loads(text)["mutant"], valid, valid, True, "same run")


def test_instances_are_one_sorted_json_object_per_line(tmp_path):
    one = Instance("o.1", "org/repo", "abc", "diff", ["t::a"], ["t::b"], "issue", "img", "procedural/x",
                   "f.py::g", "tasks/t1")
    write_instances(tmp_path / "instances.jsonl", [one, one])
    lines = (tmp_path / "instances.jsonl").read_text().splitlines()
    assert len(lines) == 2 and lines[0] == json.dumps(json.loads(lines[0]), sort_keys=True)
    assert json.loads(lines[0])["FAIL_TO_PASS"] == ["t::a"] and json.loads(lines[0])["task"] == "tasks/t1"
