"""The repository on disk: safe paths, a read-only snapshot, and atomic writes with rollback."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path, PurePosixPath

from gen09_core.errors import EnvironmentFailure
from gen09_core.models import ChangedFile, Rejection, SourceFile

BOM = b"\xef\xbb\xbf"
MAX_FILE_BYTES = 8 * 1024 * 1024


def resolve(root: Path, rel: str) -> Path | Rejection:
    """The absolute path of repo-relative POSIX path ``rel``, or a ``path_outside_repo``
    rejection when it is absolute, climbs with ``..`` or leaves the repo through a symlink."""
    pure = PurePosixPath(rel)
    if not rel or pure.is_absolute() or "\\" in rel or ".." in pure.parts or rel.startswith("~"):
        return Rejection("apply", "path_outside_repo", f"{rel!r} is not a repo-relative path")
    root = root.resolve()
    path = (root / pure).resolve()
    if not path.is_relative_to(root):
        return Rejection("apply", "path_outside_repo", f"{rel!r} resolves outside the repository")
    return path


class Snapshot:
    """The pre-generation state of the files candidates touch, read once and cached."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._files: dict[str, SourceFile | Rejection | None] = {}

    def read(self, rel: str) -> SourceFile | Rejection | None:
        """The decoded file, None when it does not exist, or a rejection (outside the repo,
        not a regular file, binary or undecodable)."""
        if rel not in self._files:
            self._files[rel] = self._load(rel)
        return self._files[rel]

    def _load(self, rel: str) -> SourceFile | Rejection | None:
        path = resolve(self.root, rel)
        if isinstance(path, Rejection):
            return path
        if not path.exists():
            return None
        if not path.is_file():
            return Rejection("apply", "not_text", f"{rel} is not a regular file")
        if path.stat().st_size > MAX_FILE_BYTES:
            return Rejection("apply", "not_text", f"{rel} is larger than {MAX_FILE_BYTES} bytes")
        return decode(rel, path.read_bytes())


def decode(rel: str, raw: bytes) -> SourceFile | Rejection:
    """Decode UTF-8 (with or without BOM) exactly; binary or other encodings are rejected."""
    if b"\0" in raw:
        return Rejection("apply", "not_text", f"{rel} is binary (contains NUL bytes)")
    bom = raw.startswith(BOM)
    try:
        text = raw[len(BOM) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as exc:
        return Rejection("apply", "not_text", f"{rel} is not UTF-8 text (byte {exc.start})")
    return SourceFile(rel, text, bom)


def write_atomically(root: Path, files: tuple[ChangedFile, ...]) -> None:
    """Write every file or none: each lands via a temp file + ``os.replace``; a file that
    changed on disk since the snapshot, or any failure, restores everything already written."""
    root = Path(root)
    done: list[tuple[Path, bytes | None]] = []
    try:
        for changed in files:
            path = resolve(root, changed.path)
            if isinstance(path, Rejection):
                raise EnvironmentFailure(path.detail)
            before = path.read_bytes() if path.exists() else None
            expected = changed.original.encode() if changed.original else None
            if before != expected:
                raise EnvironmentFailure(f"{changed.path} changed on disk since it was read")
            _replace(path, changed.new_bytes())
            done.append((path, before))
    except BaseException as exc:
        for path, before in reversed(done):
            if before is None:
                path.unlink(missing_ok=True)
            else:
                _replace(path, before)
        if isinstance(exc, OSError):
            raise EnvironmentFailure(f"write failed and was rolled back: {exc}") from None
        raise


def _replace(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.exists() else None
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".gen09")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
