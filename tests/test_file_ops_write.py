"""--write of renames and deletions: the same journaled transaction as every write, so a
process death at any file-system step leaves all old or all new after the next command."""

import pytest

from gen09_core import journal, write
from gen09_core.candidates import parse
from gen09_core.errors import EnvironmentFailure
from gen09_core.pipeline import run_batch
from gen09_core.write import write_files
from tests.test_write import _crash_at  # counts os.rename, the step a deletion takes

OLD = {"pkg/a.py": b"A = 1\n", "pkg/b.py": b"B = 2\n", "keep.txt": b"keep\n"}
NEW = {"pkg/a.py": None, "pkg/b.py": None, "moved/a2.py": b"A = 10\n", "keep.txt": b"keep\n"}


@pytest.fixture
def setup(tmp_path, registry):
    root = tmp_path / "repo"
    for rel, data in OLD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    (root / ".git").mkdir()
    data = {"version": 1, "format": "apply_patch", "candidates": [{"id": "m", "patch": (
        "*** Begin Patch\n*** Update File: pkg/a.py\n*** Move to: moved/a2.py\n@@\n-A = 1\n+A = 10\n"
        "*** Delete File: pkg/b.py\n*** End Patch\n")}]}
    outcome = run_batch(parse(data), root, registry).outcomes[0]
    assert outcome.status == "valid", outcome
    return root, outcome.applied.files


def state(root) -> str:
    have = {rel: (root / rel).read_bytes() if (root / rel).exists() else None for rel in NEW}
    if all(have[rel] == OLD.get(rel) for rel in NEW) and not (root / "moved").exists():
        return "old"
    if all(have[rel] == NEW[rel] for rel in NEW):
        return "new"
    return f"mixed {have}"


def leftovers(root):
    found = [str(p.relative_to(root)) for p in root.rglob("*.gen09")]
    return found + ([str(journal.journal_dir(root.resolve()))] if journal.journal_dir(root.resolve()).exists() else [])


def test_a_rename_plus_delete_lands_and_keeps_nothing_behind(setup):
    root, files = setup
    write_files(root, files)
    assert state(root) == "new" and leftovers(root) == []


def test_a_file_changed_before_its_deletion_is_kept_and_nothing_is_written(setup):
    root, files = setup
    (root / "pkg/b.py").write_bytes(b"B = 3\n")
    with pytest.raises(write.Conflict, match="pkg/b.py changed on disk"):
        write_files(root, files)
    assert (root / "pkg/a.py").read_bytes() == OLD["pkg/a.py"] and not (root / "moved").exists()


def test_a_failing_last_step_rolls_the_deletion_and_the_rename_back(setup, monkeypatch):
    root, files = setup
    real_place, placed = write._place, []

    def place(root_, target):
        if len(placed) == len(files) - 1:
            raise OSError(5, "Input/output error", target.path)
        placed.append(target.path)
        real_place(root_, target)

    monkeypatch.setattr(write, "_place", place)
    with pytest.raises(EnvironmentFailure, match="rolled back"):
        write_files(root, files)
    assert state(root) == "old" and leftovers(root) == []


def test_a_process_death_at_every_step_is_rolled_back_or_complete(setup):
    root, files = setup
    outcomes, step = [], 0
    while True:
        step += 1
        status = _crash_at(step, lambda: write_files(root, files))
        assert status in (0, 9)
        journal.recover(root)
        outcomes.append(state(root))
        assert outcomes[-1] in ("old", "new"), (step, outcomes[-1])
        assert leftovers(root) == [], step
        if status == 0:
            break
        if outcomes[-1] == "new":
            for rel in NEW:
                (root / rel).unlink(missing_ok=True)
            (root / "moved").rmdir()
            for rel, data in OLD.items():
                (root / rel).write_bytes(data)
    assert step > 20 and outcomes.count("old") > 15 and outcomes[-1] == "new"
