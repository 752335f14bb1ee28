"""The write-ahead journal of ``--write``: where it lives, what a transaction records before
it changes anything, and how an interrupted transaction is rolled back.

**Where.** ``<git dir>/gen09/`` when the repository root has ``.git`` (a folder, or the
``gitdir:`` file of a worktree or submodule), otherwise ``<root>/.gen09/``. The folder exists
only while a write is in progress or after one was interrupted.

**What.** ``old-N``: the N-th existing target as it was, a hard link to its file (no bytes
are copied: the swap in ``gen09_core.write`` never modifies that file) or, across file
systems, a copy of its bytes. Then, written last and atomically, ``journal.json``: per
target its path, the temp name its new bytes are staged under, its ``old-N`` (null for a
file that did not exist), its mode and the sha256 of the new bytes (null: the write
deletes the file); and the folders the
write creates. While ``journal.json`` exists the
repository may be part-written. Rolling back from it never modifies it: a file holding the
new bytes gets its old bytes (or is removed), staged temp files and created (empty) folders
are removed, and only then is the journal deleted. So a rollback that is itself interrupted
or fails (disk full) leaves the journal as it was, and running it again finishes the job.

**Who.** One lock per repository (``flock`` on the root folder) serializes writers and
recoveries; the kernel releases it when a holder dies, even by SIGKILL.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

from gen09_core.errors import EnvironmentFailure

MANIFEST = "journal.json"
VERSION = 1


class RollbackFailed(EnvironmentFailure):
    """A rollback could not restore every file; the journal is kept for the next attempt."""


def journal_dir(root: Path) -> Path:
    """The write-journal folder of the repository at ``root`` (this module's journal)."""
    dot_git = root / ".git"
    if dot_git.is_file():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            line = dot_git.read_text(encoding="utf-8").split("\n")[0]
            if line.startswith("gitdir:"):
                return (root / line[len("gitdir:"):].strip()) / "gen09"
    return dot_git / "gen09" if dot_git.is_dir() else root / ".gen09"


def pending(root: Path) -> bool:
    """True when an interrupted (or running) ``--write`` left its journal in ``root``."""
    try:
        return journal_dir(root).exists()
    except OSError:
        return False  # an unreadable repository: reading it fails with its own message


@contextlib.contextmanager
def lock(root: Path):
    """Hold the repository's exclusive write lock (blocking until it is free)."""
    import fcntl

    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise EnvironmentFailure(f"cannot open {root} to lock it: {exc.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            raise EnvironmentFailure(f"cannot lock {root}: {exc.strerror}") from None
        yield
    finally:
        os.close(fd)


def recover(root) -> None:
    """Complete the rollback of an interrupted write of ``root``, if there is one (say so on
    stderr). Cheap when there is none: one ``stat``."""
    root = Path(root).resolve()
    if not pending(root):
        return
    with lock(root):
        recover_locked(root)


def recover_locked(root: Path) -> None:
    """``recover`` for a caller that already holds the lock."""
    folder = journal_dir(root)
    if not folder.exists():
        return
    manifest = _load(folder)
    if manifest is None:
        _clean(folder)
        return
    restored = rollback(root, folder, manifest)
    if sys.stderr is not None:
        print(f"gen09: completed the rollback of an interrupted --write (pid {manifest.get('pid')}) "
              f"in {root}: {restored}", file=sys.stderr, flush=True)


def begin(root: Path, folder: Path, files: list[dict], old: list[bytes | None], dirs: list[str]) -> None:
    """Record the transaction: each old copy (a hard link to the old file when the file
    system allows, else a copy of ``old``), then the manifest (atomically). ``files`` are
    manifest entries without their ``old`` key, aligned with ``old`` (None: no such file)."""
    if not folder.is_dir():
        folder.mkdir(parents=True)
        sync_dir(folder.parent)
    entries = []
    for number, (entry, data) in enumerate(zip(files, old, strict=True)):
        name = None if data is None else f"old-{number}"
        if name:
            try:
                os.link(root / entry["path"], folder / name)
            except OSError:  # another file system, or no hard links here
                write_file(folder / name, data)
        entries.append({**entry, "old": name})
    body = json.dumps({"version": VERSION, "pid": os.getpid(), "files": entries, "dirs": dirs})
    write_file(folder / (MANIFEST + ".tmp"), body.encode("utf-8"))
    os.replace(folder / (MANIFEST + ".tmp"), folder / MANIFEST)
    sync_dir(folder)


def commit(folder: Path) -> None:
    """The transaction is done: delete the manifest (durably), then the old copies."""
    (folder / MANIFEST).unlink()
    sync_dir(folder)
    _clean(folder)


def rollback(root: Path, folder: Path, manifest: dict | None = None) -> str:
    """Undo the transaction recorded in ``folder`` (nothing when no manifest was written) and
    delete the journal; return what was done, one phrase per file. ``RollbackFailed`` lists
    every file's state when a file could not be restored; the journal is then kept."""
    manifest = manifest or _load(folder)
    if manifest is None:
        _clean(folder)
        return "nothing had been written"
    states, failed = [], False
    for entry in manifest["files"]:
        try:
            states.append(f"{entry['path']}: {_undo(root, folder, entry)}")
        except OSError as exc:
            failed = True
            states.append(f"{entry['path']}: NEW bytes, could not restore ({exc.strerror or exc})")
    for rel in reversed(manifest["dirs"]):
        try:
            (root / rel).rmdir()
            states.append(f"{rel}/: created folder removed")
        except FileNotFoundError:
            pass
        except OSError as exc:
            states.append(f"{rel}/: created folder kept ({exc.strerror})")
    if failed:
        raise RollbackFailed(f"rollback incomplete, the journal in {folder} is kept and the next "
                             "gen09 command on this repository retries it: " + "; ".join(states))
    for parent in {(root / e["path"]).parent for e in manifest["files"]}:
        with contextlib.suppress(OSError):
            sync_dir(parent)
    commit(folder)
    return "; ".join(states)


def _undo(root: Path, folder: Path, entry: dict) -> str:
    """Put one file back; idempotent. Returns its state afterwards."""
    import hashlib

    path, tmp = root / entry["path"], root / entry["tmp"]
    old = None if entry["old"] is None else (folder / entry["old"]).read_bytes()
    current = read_or_none(path)
    if entry["new_sha256"] is None:  # the write deletes this file
        tmp.unlink(missing_ok=True)
        if current is None:
            write_file(tmp, old, entry["mode"])
            os.replace(tmp, path)
            return "restored (its deletion was undone)"
        return "unchanged" if current == old else "left as another process wrote it"
    if current is not None and hashlib.sha256(current).hexdigest() == entry["new_sha256"]:
        if old is None:
            path.unlink()
        else:
            tmp.unlink(missing_ok=True)
            write_file(tmp, old, entry["mode"])
            os.replace(tmp, path)
        tmp.unlink(missing_ok=True)
        return "restored" if old is not None else "removed (it was new)"
    tmp.unlink(missing_ok=True)
    if current == old:
        return "unchanged"
    return "left as another process wrote it"


def write_file(path: Path, data: bytes, mode: int | None = None) -> None:
    """Create ``path`` (never replacing a file) holding ``data``, durably. A new file gets
    ``0666 & ~umask``; ``mode`` sets another."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    try:
        with open(fd, "wb", closefd=False) as handle:
            handle.write(data)
        if mode is not None:
            os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        path.unlink(missing_ok=True)  # no partial file stays behind (e.g. on a full disk)
        raise
    finally:
        os.close(fd)


def sync_dir(path: Path) -> None:
    """Make renames and unlinks inside folder ``path`` durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_or_none(path: Path) -> bytes | None:
    """The bytes of ``path``, None when there is no such file."""
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _load(folder: Path) -> dict | None:
    """The manifest, None when there is none; a damaged one is an ``EnvironmentFailure``."""
    try:
        raw = (folder / MANIFEST).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EnvironmentFailure(f"cannot read the write journal {folder / MANIFEST}: "
                                 f"{exc.strerror}") from None
    try:
        manifest = json.loads(raw)
        if manifest["version"] != VERSION:
            raise ValueError(f"version {manifest['version']}")
        bad = [e for e in manifest["files"] if not _valid(e)]
        bad += [d for d in manifest["dirs"] if not _inside(d)]
        if bad:
            raise ValueError(f"unexpected entry {bad[0]!r}")
    except (ValueError, KeyError, TypeError) as exc:
        raise EnvironmentFailure(f"the write journal {folder / MANIFEST} is damaged ({exc}); "
                                 "inspect the files it names, then delete the folder") from None
    return manifest


def _valid(entry) -> bool:
    old = entry["old"]
    new = entry["new_sha256"]
    return (_inside(entry["path"]) and _inside(entry["tmp"])
            and (isinstance(new, str) or (new is None and old is not None))
            and (old is None or isinstance(old, str) and old.startswith("old-") and "/" not in old)
            and (entry["mode"] is None or isinstance(entry["mode"], int)))


def _inside(rel) -> bool:
    return isinstance(rel, str) and bool(rel) and not rel.startswith("/") and ".." not in rel.split("/")


def _clean(folder: Path) -> None:
    """Delete a journal folder that holds no manifest (only gen09's own files in it)."""
    for name in (MANIFEST, MANIFEST + ".tmp"):
        (folder / name).unlink(missing_ok=True)
    for copy in folder.glob("old-*"):
        copy.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()
