"""The --write transaction in process: conflicts, permissions, injected disk failures, and a
real process death at every file-system step of a write and of its rollback."""

import errno
import json
import os
import signal
import subprocess
import sys

import pytest

from gen09_core import journal, write
from gen09_core.candidates import parse
from gen09_core.errors import EnvironmentFailure, Interrupted
from gen09_core.pipeline import run_batch
from gen09_core.write import Conflict, write_files
from tests.writes import batch, expected_new, leftovers, make_repo, reset, targets_state


@pytest.fixture
def setup(tmp_path, registry):
    """A git repository, the applied files of its multi-file candidate, and the bytes."""
    root = tmp_path / "repo"
    original = make_repo(root)
    outcome = run_batch(parse(batch(original)), root, registry).outcomes[0]
    assert outcome.status == "valid", outcome
    return root, original, expected_new(original), outcome.applied.files


def test_a_write_lands_every_file_with_normal_permissions(setup):
    root, original, new, files = setup
    old_umask = os.umask(0o027)
    try:
        write_files(root, files)
    finally:
        os.umask(old_umask)
    assert targets_state(root, original, new) == "new" and leftovers(root) == []
    assert (root / "pkg/new/deep/made.txt").stat().st_mode & 0o777 == 0o640
    assert (root / "pkg/f0.txt").stat().st_mode & 0o777 == 0o644


def test_outside_git_the_journal_is_a_dot_gen09_folder_removed_afterwards(tmp_path, registry):
    root = tmp_path / "plain"
    original = make_repo(root, git=False)
    files = run_batch(parse(batch(original)), root, registry).outcomes[0].applied.files
    assert journal.journal_dir(root.resolve()) == root.resolve() / ".gen09"
    write_files(root, files)
    assert targets_state(root, original, expected_new(original)) == "new"
    assert sorted(p.name for p in root.iterdir()) == ["pkg"]


def test_the_journal_of_a_worktree_lives_in_its_git_dir(tmp_path):
    gitdir = tmp_path / "main.git" / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {gitdir}\n")
    assert journal.journal_dir(tmp_path / "wt") == gitdir / "gen09"


def test_a_file_changed_since_the_snapshot_is_named_and_nothing_is_written(setup):
    root, original, new, files = setup
    (root / "pkg/f2.txt").write_text("someone else\n")
    original["pkg/f2.txt"] = b"someone else\n"
    with pytest.raises(Conflict, match="pkg/f2.txt changed on disk"):
        write_files(root, files)
    assert targets_state(root, original, new) == "old" and leftovers(root) == []


def test_a_read_only_target_is_refused_unless_forced(setup):
    root, original, new, files = setup
    os.chmod(root / "pkg/f1.txt", 0o444)
    with pytest.raises(EnvironmentFailure, match="pkg/f1.txt is read-only"):
        write_files(root, files)
    assert targets_state(root, original, new) == "old"
    write_files(root, files, force=True)
    assert targets_state(root, original, new) == "new"
    assert (root / "pkg/f1.txt").stat().st_mode & 0o777 == 0o444


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "fallback"])
def test_another_process_writing_a_target_between_check_and_rename_is_detected(
        setup, monkeypatch, exchange):
    """A real second process rewrites pkg/f1.txt after gen09 verified it; its bytes survive."""
    root, original, new, files = setup
    staged = []
    real_write_file = journal.write_file

    def write_file(path, data, mode=None):
        real_write_file(path, data, mode)
        if path.name.endswith(".gen09") and not staged:
            staged.append(path)
            subprocess.run([sys.executable, "-c", "import sys; open(sys.argv[1], 'a').write('x\\n')",
                            str(root / "pkg/f1.txt")], check=True)

    monkeypatch.setattr(journal, "write_file", write_file)
    if not exchange:
        monkeypatch.setattr(write, "_renameat2", lambda src, dst, flags: False)
    with pytest.raises(Conflict, match="pkg/f1.txt was changed by another process"):
        write_files(root, files)
    original["pkg/f1.txt"] += b"x\n"
    assert targets_state(root, original, new) == "old" and leftovers(root) == []


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "fallback"])
def test_a_file_created_meanwhile_by_another_process_is_never_replaced(setup, monkeypatch, exchange):
    root, original, new, files = setup
    real_place = write._place

    def place(root_, target):
        if target.path == "pkg/other/made2.txt":
            subprocess.run([sys.executable, "-c", "import sys; open(sys.argv[1], 'x').write('theirs')",
                            str(root / "pkg/other/made2.txt")], check=True)
        real_place(root_, target)

    monkeypatch.setattr(write, "_place", place)
    if not exchange:
        monkeypatch.setattr(write, "_renameat2", lambda src, dst, flags: False)
    with pytest.raises(Conflict, match="pkg/other/made2.txt was changed by another process"):
        write_files(root, files)
    assert (root / "pkg/other/made2.txt").read_text() == "theirs"
    assert all((root / rel).read_bytes() == data for rel, data in original.items())
    assert not (root / "pkg/new").exists() and leftovers(root) == []


def _enospc_on_call(monkeypatch, target, name, number):
    """Make call ``number`` (1-based) of ``target.name`` fail with ENOSPC, as a full disk does."""
    real, calls = getattr(target, name), []

    def failing(*args, **kwargs):
        calls.append(args)
        if len(calls) == number:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(args[0]))
        return real(*args, **kwargs)

    monkeypatch.setattr(target, name, failing)
    return calls


@pytest.mark.parametrize("link, number", [(True, n) for n in range(1, 7)] + [(False, n) for n in range(1, 10)])
def test_a_full_disk_at_any_write_call_rolls_back_everything(setup, monkeypatch, link, number):
    """With hard links, call 1 writes the manifest and 2-6 the staged new files; without
    (another file system), calls 1-3 copy the old files first."""
    root, original, new, files = setup
    if not link:
        monkeypatch.setattr(os, "link", lambda *a: (_ for _ in ()).throw(OSError(errno.EXDEV, "cross-device")))
    _enospc_on_call(monkeypatch, journal, "write_file", number)
    with pytest.raises(EnvironmentFailure, match="No space left on device.*rolled back"):
        write_files(root, files)
    assert targets_state(root, original, new) == "old" and leftovers(root) == []


def test_a_rollback_that_hits_a_full_disk_keeps_a_consistent_journal_and_says_where_each_file_is(
        setup, monkeypatch):
    root, original, new, files = setup
    real_place, placed = write._place, []

    def place(root_, target):  # the last placement fails: the other files are new by then
        if len(placed) == 4:
            raise OSError(errno.EIO, os.strerror(errno.EIO), target.path)
        placed.append(target.path)
        real_place(root_, target)

    monkeypatch.setattr(write, "_place", place)
    calls = []
    real_write_file = journal.write_file

    def write_file(path, data, mode=None):  # full once the write has begun rolling back
        calls.append(path)
        if placed and len(placed) == 4:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real_write_file(path, data, mode)

    monkeypatch.setattr(journal, "write_file", write_file)
    folder = journal.journal_dir(root.resolve())
    with pytest.raises(journal.RollbackFailed) as failure:
        write_files(root, files)
    message = str(failure.value)
    assert "Input/output error" in message and "\n" not in message
    for rel in original:
        assert f"{rel}: NEW bytes, could not restore (No space left on device)" in message
    assert "pkg/new/deep/made.txt: removed (it was new)" in message
    assert "pkg/other/made2.txt: unchanged" in message
    assert f"the journal in {folder} is kept" in message
    manifest = json.loads((folder / "journal.json").read_text())  # intact, and its copies too
    for entry in manifest["files"]:
        if entry["old"]:
            assert (folder / entry["old"]).read_bytes() == original[entry["path"]]
    monkeypatch.undo()  # space is free again: the next gen09 command completes the rollback
    journal.recover(root)
    assert targets_state(root, original, new) == "old" and leftovers(root) == []


def _crash_at(step: int, action) -> int:
    """Run ``action`` in a forked child that dies (``os._exit``) at its ``step``-th file-system
    call; return the child's exit status (0: it finished before that step)."""
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            counter = [0]
            for module, name in [(os, "open"), (os, "link"), (os, "replace"), (os, "rename"), (os, "unlink"),
                                 (os, "mkdir"), (os, "rmdir"), (os, "fsync"), (write, "_renameat2")]:
                real = getattr(module, name)

                def counted(*args, _real=real, **kwargs):
                    counter[0] += 1
                    if counter[0] == step:
                        os._exit(9)
                    return _real(*args, **kwargs)

                setattr(module, name, counted)
            action()
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def test_a_process_death_at_every_step_of_a_write_is_rolled_back_by_the_next_command(setup, capfd):
    root, original, new, files = setup
    outcomes, step = [], 0
    while True:
        step += 1
        status = _crash_at(step, lambda: write_files(root, files))
        assert status in (0, 9)
        journal.recover(root)
        state = targets_state(root, original, new)
        assert state in ("old", "new"), (step, state)
        assert leftovers(root) == [], step
        outcomes.append(state)
        if status == 0:
            break
        if state == "new":  # died after the commit: put the old bytes back for the next step
            reset(root, original, new)
    assert step > 30 and outcomes.count("old") > 25 and outcomes[-1] == "new"
    assert "completed the rollback of an interrupted --write" in capfd.readouterr().err


def test_a_process_death_at_every_step_of_a_rollback_is_finished_by_the_next_command(setup):
    root, original, new, files = setup
    renames = 0
    for step in range(1, 200):  # first: the step at which every file has been placed
        status = _crash_at(step, lambda: write_files(root, files))
        placed = targets_state(root, original, new) == "new"
        journal.recover(root)
        if placed:
            break
        renames = step
    assert status == 9, "the write finished before any crash point placed every file"
    for step in range(1, 100):
        assert _crash_at(renames + 1, lambda: write_files(root, files)) == 9
        assert (journal.journal_dir(root.resolve()) / "journal.json").exists()
        status = _crash_at(step, lambda: journal.recover(root))
        journal.recover(root)
        assert targets_state(root, original, new) == "old", step
        assert leftovers(root) == [], step
        if status == 0:
            break
    assert step > 10


def test_a_signal_whose_handler_runs_inside_the_blocking_call_leaves_signals_unblocked(
        setup, monkeypatch):
    # CPython runs pending signal handlers inside pthread_sigmask, after the mask changed:
    # a SIGTERM that came just before the commit's hold raises Interrupted from that call.
    root, original, new, files = setup
    real = signal.pthread_sigmask

    def block_then_handle(how, mask):
        previous = real(how, mask)
        if how == signal.SIG_BLOCK and signal.SIGTERM in mask:
            monkeypatch.setattr(signal, "pthread_sigmask", real)
            raise Interrupted(signal.SIGTERM)
        return previous

    monkeypatch.setattr(signal, "pthread_sigmask", block_then_handle)
    try:
        with pytest.raises(Interrupted) as caught:
            write_files(root, files)
        assert caught.value.detail.startswith("the write was rolled back")
        assert not set(write.SIGNALS) & real(signal.SIG_BLOCK, [])
    finally:
        real(signal.SIG_UNBLOCK, write.SIGNALS)
    assert targets_state(root, original, new) == "old" and leftovers(root) == []
