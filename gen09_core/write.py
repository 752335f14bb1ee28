"""``--write``: land the files of one valid candidate as a single transaction.

Under the repository lock (``journal.lock``), after completing any interrupted write:

1. **verify** each target still holds the snapshot's bytes (or is still absent) and is not
   read-only (unless ``force``);
2. **journal** the old bytes and the plan (``journal.begin``);
3. **stage** the new bytes of every file in a temp file beside it (``.NAME.TXID.gen09``,
   fsynced; a new file gets ``0666 & ~umask``, an existing one keeps its mode);
4. **place** each one with ``renameat2(RENAME_EXCHANGE)``: the old file comes back under the
   temp name and is compared with the verified bytes, so a non-gen09 process that changed
   the file after step 1 is detected after the swap and gets its file back. A new file is
   placed with ``RENAME_NOREPLACE``, which refuses a file that appeared meanwhile. Where the
   kernel or filesystem lacks ``renameat2``, the file is re-read just before ``rename(2)``:
   the window left is the one between that read and that system call;
5. **commit**: delete the journal.

Any failure, or SIGTERM / SIGINT / SIGHUP, before the commit rolls everything back from the
journal (signals are held while rolling back or committing). After SIGKILL or power loss the
next gen09 command on the repository finds the journal and rolls back (``journal.recover``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import stat
from pathlib import Path

from attrs import frozen

from gen09_core import journal
from gen09_core.errors import EnvironmentFailure, Interrupted
from gen09_core.models import ChangedFile, Rejection
from gen09_core.repo import resolve, why

SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
RENAME_NOREPLACE, RENAME_EXCHANGE = 1, 2


class Conflict(EnvironmentFailure):
    """A target changed on disk since the snapshot was read."""


@frozen
class Target:
    """One file of the write: where it goes, where its new bytes are staged, its mode (None
    for a new file), and its verified old bytes (None: absent) and new bytes (None: the
    file is deleted; its old bytes pass through the temp name on their way out)."""

    path: str
    tmp: str
    mode: int | None
    old: bytes | None
    new: bytes | None

    def entry(self) -> dict:
        """The journal manifest's entry (without its old copy)."""
        import hashlib

        digest = None if self.new is None else hashlib.sha256(self.new).hexdigest()
        return {"path": self.path, "tmp": self.tmp, "mode": self.mode, "new_sha256": digest}


def write_files(root, files: tuple[ChangedFile, ...], force: bool = False) -> None:
    """Write every file of one candidate, or none (see the module docstring). Raises
    ``Conflict`` (a file changed since it was read), ``EnvironmentFailure`` (read-only
    target, disk failure — rolled back), ``RollbackFailed`` (the rollback could not finish;
    the journal is kept) or ``Interrupted`` (a signal; rolled back)."""
    root = Path(root).resolve()
    with journal.lock(root), _signals_raise():
        journal.recover_locked(root)
        txid = secrets.token_hex(4)
        targets = [_verify(root, changed, txid, force) for changed in files]
        _transaction(root, targets, _missing_dirs(root, targets))


def _transaction(root: Path, targets: list[Target], dirs: list[str]) -> None:
    """Steps 2-5, or the rollback."""
    folder = journal.journal_dir(root)
    committed = False
    try:
        journal.begin(root, folder, [t.entry() for t in targets], [t.old for t in targets], dirs)
        for rel in dirs:
            (root / rel).mkdir(exist_ok=True)
        for t in targets:
            if t.new is not None:
                journal.write_file(root / t.tmp, t.new, t.mode)
        for t in targets:
            _place(root, t)
        for parent in {(root / rel).parent for rel in [t.path for t in targets] + dirs}:
            journal.sync_dir(parent)
        with _signals_held():
            journal.commit(folder)
            committed = True
    except BaseException as exc:
        if committed:  # only a signal held during the commit gets here
            exc.detail = "it arrived after the write was complete"
            raise
        try:
            with _signals_held():
                done = _rollback(root, folder, exc)
        except Interrupted as again:  # a second signal, held until the rollback was done
            again.detail = "the write was rolled back"
            raise
        if isinstance(exc, Interrupted):
            exc.detail = f"the write was rolled back: {done}"
            raise
        if isinstance(exc, Conflict):
            raise Conflict(f"{exc}; rolled back: {done}") from None
        if isinstance(exc, OSError):
            raise EnvironmentFailure(f"write failed ({why(exc)}: {exc.filename}) and was rolled "
                                     f"back: {done}") from None
        raise


def _verify(root: Path, changed: ChangedFile, txid: str, force: bool) -> Target:
    """Step 1 for one file."""
    path = resolve(root, changed.path)
    if isinstance(path, Rejection):
        raise EnvironmentFailure(f"{changed.path}: {path.detail}")
    expected = None if changed.created else changed.original.encode()
    try:
        current = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        current = None
    except OSError as exc:
        raise EnvironmentFailure(f"cannot read {changed.path}: {why(exc)}; nothing was written") from None
    if current != expected:
        raise Conflict(f"{changed.path} changed on disk since it was read (another writer?); "
                       "nothing was written")
    mode = None
    if current is not None:
        mode = stat.S_IMODE(path.stat().st_mode)
        if not force and (not mode & 0o222 or not os.access(path, os.W_OK)):
            raise EnvironmentFailure(f"{changed.path} is read-only (mode {mode:o}); nothing was "
                                     "written (--force writes it anyway)")
    rel = path.relative_to(root)
    tmp = rel.parent / f".{rel.name[:200]}.{txid}.gen09"
    new = None if changed.deleted else changed.new_bytes()
    return Target(rel.as_posix(), tmp.as_posix(), mode, current, new)


def _missing_dirs(root: Path, targets: list[Target]) -> list[str]:
    """The folders to create for new files, parents first."""
    dirs: list[str] = []
    for t in targets:
        parent = Path(t.path).parent
        chain = []
        while parent != Path(".") and not (root / parent).is_dir():
            if (root / parent).exists():
                raise EnvironmentFailure(f"{t.path}: {parent} is not a folder; nothing was written")
            chain.append(parent.as_posix())
            parent = parent.parent
        dirs += [d for d in reversed(chain) if d not in dirs]
    return dirs


def _place(root: Path, target: Target) -> None:
    """Step 4 for one staged file."""
    path, tmp, old = root / target.path, root / target.tmp, target.old
    changed = Conflict(f"{target.path} was changed by another process while gen09 was writing it; "
                       "the other process's file was kept")
    if target.new is None:  # a deletion: move the file aside, check it, then drop it
        os.rename(path, tmp)
        if tmp.read_bytes() != old:
            os.rename(tmp, path)
            raise changed
        tmp.unlink()
        return
    if old is None:
        try:
            if _renameat2(tmp, path, RENAME_NOREPLACE):
                return
        except FileExistsError:
            raise changed from None
        if os.path.lexists(path):
            raise changed
        os.replace(tmp, path)
        return
    if _renameat2(tmp, path, RENAME_EXCHANGE):
        if tmp.read_bytes() != old:
            _renameat2(tmp, path, RENAME_EXCHANGE)
            raise changed
        tmp.unlink()
        return
    if journal.read_or_none(path) != old:
        raise changed
    os.replace(tmp, path)


def _rollback(root: Path, folder: Path, cause: BaseException) -> str:
    try:
        return journal.rollback(root, folder)
    except journal.RollbackFailed as exc:
        what = (f"interrupted by {signal.Signals(cause.signum).name}" if isinstance(cause, Interrupted)
                else f"write failed ({why(cause)})")
        raise journal.RollbackFailed(f"{what}; {exc}") from None


_LIBC = []


def _renameat2(src: Path, dst: Path, flags: int) -> bool:
    """``renameat2(2)``; False when this system cannot do it (then the caller falls back)."""
    if not _LIBC:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _LIBC.append((ctypes, getattr(libc, "renameat2", None)))
    ctypes, func = _LIBC[0]
    if func is None:
        return False
    if func(-100, os.fsencode(src), -100, os.fsencode(dst), flags) == 0:  # -100: AT_FDCWD
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(dst))


@contextlib.contextmanager
def _signals_raise():
    """Turn SIGTERM, SIGINT and SIGHUP into ``Interrupted`` (main thread only)."""
    def handler(signum, frame):
        raise Interrupted(signum)

    try:
        previous = {s: signal.signal(s, handler) for s in SIGNALS}
    except ValueError:  # not the main thread: signals stay as they are
        previous = {}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def _signals_held():
    """Hold SIGTERM, SIGINT and SIGHUP until the block is done (then they are delivered).
    The blocking call runs the handler of a signal that came just before it, so it sits
    inside the ``try``: that handler's ``Interrupted`` still puts the mask back."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the mask as it is (a handler run here blocks none)
    try:
        signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
