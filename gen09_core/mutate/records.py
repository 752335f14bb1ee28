"""The records a ``repo_mutate`` run keeps about its mutants, saved and loaded through the
one converter (``config.CONVERTER``).

``mutants/<id>.json`` holds what was decided about one mutant: its description (the mutant
without its text), the validation verdict and, once confirmed, the confirmed verdict.
Fields not yet decided are left out of the file. ``instances.jsonl`` holds one
SWE-smith/SWE-bench-style instance per exported task.
"""

from __future__ import annotations

import json
from pathlib import Path

from attrs import frozen
from cattrs.gen import make_dict_unstructure_fn

from gen09_core.mutate.config import CONVERTER
from gen09_core.mutate.mutants import Mutant
from gen09_core.mutate.validate import Verdict


@frozen
class MutantRecord:
    """What the run decided about one mutant, in the order it was decided."""

    mutant: dict  # the Mutant's fields but its text
    verdict: Verdict | None = None
    confirmed: Verdict | None = None
    selection_agrees: bool | None = None
    confirmation: str | None = None  # how the confirmation was obtained, when not by its own run

    @classmethod
    def of(cls, mutant: Mutant) -> MutantRecord:
        """A fresh record describing ``mutant``."""
        data = CONVERTER.unstructure(mutant)
        data.pop("text")
        return cls(data)


CONVERTER.register_unstructure_hook(
    MutantRecord, make_dict_unstructure_fn(MutantRecord, CONVERTER, _cattrs_omit_if_default=True))


@frozen
class MutantRecords:
    """The folder of mutant records (``<run>/mutants``)."""

    root: Path

    def start(self, mutant: Mutant) -> MutantRecord:
        """A fresh record describing ``mutant`` (not saved yet)."""
        return MutantRecord.of(mutant)

    def load(self, mutant_id: str) -> MutantRecord | None:
        """The saved record of ``mutant_id``, or None."""
        path = self.root / f"{mutant_id}.json"
        if not path.exists():
            return None
        return CONVERTER.structure(json.loads(path.read_text(encoding="utf-8")), MutantRecord)

    def save(self, mutant_id: str, record: MutantRecord) -> MutantRecord:
        """Write ``record`` atomically (aside, then renamed in); returns it."""
        path = self.root / f"{mutant_id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        text = json.dumps(CONVERTER.unstructure(record), indent=1, sort_keys=True) + "\n"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
        return record


@frozen
class Instance:
    """One ``instances.jsonl`` line with SWE-smith/SWE-bench fields. As in SWE-smith,
    ``patch`` is the bug-introducing diff (pristine → mutant); the fix is its reverse."""

    instance_id: str
    repo: str
    base_commit: str
    patch: str
    FAIL_TO_PASS: list[str]  # noqa: N815 (the SWE-bench field names)
    PASS_TO_PASS: list[str]  # noqa: N815
    problem_statement: str
    image_name: str
    strategy: str
    entity: str
    task: str


def write_instances(path: Path, instances: list[Instance]) -> None:
    """Write ``instances.jsonl``: one JSON object per line, keys sorted."""
    Path(path).write_text("".join(json.dumps(CONVERTER.unstructure(i), sort_keys=True) + "\n"
                                  for i in instances), encoding="utf-8")
