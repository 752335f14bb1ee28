"""The repository on disk: safe paths and a read-only snapshot (writes: ``gen09_core.write``)."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.journal import pending, recover
from gen09_core.models import Rejection, SourceFile
from gen09_core.text import BOM

MAX_FILE_BYTES = 8 * 1024 * 1024
RESERVED = {".git", ".gen09"}  # git's own folder; gen09's write journal outside git
_DRIVE = re.compile(r"^[A-Za-z]:")


def repo_root(repo) -> Path:
    """The resolved repository folder; ``BadInput`` when it is not an existing folder."""
    try:
        root = Path(repo).resolve()
        if root.is_dir():
            return root
    except (OSError, RuntimeError, ValueError) as exc:
        raise BadInput(f"{repo}: not a usable repository folder ({why(exc)})") from None
    raise BadInput(f"{repo}: repository folder does not exist")


def resolve(root: Path, rel: str) -> Path | Rejection:
    """The absolute real path of repo-relative POSIX path ``rel``, or a ``path_outside_repo``
    rejection when it is absolute (also ``C:``-style), climbs with ``..``, leaves the repo
    through a symlink or enters ``.git`` / ``.gen09``. ``BadInput`` when it cannot be
    resolved at all (a symlink loop)."""
    pure = PurePosixPath(rel)
    if (not rel or pure.is_absolute() or "\\" in rel or ".." in pure.parts or rel.startswith("~")
            or _DRIVE.match(rel)):
        return Rejection("apply", "path_outside_repo", f"{rel!r} is not a repo-relative path")
    root = Path(root).resolve()
    try:
        path = (root / pure).resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise BadInput(f"{rel}: the path cannot be resolved ({why(exc)})") from None
    if not path.is_relative_to(root):
        return Rejection("apply", "path_outside_repo", f"{rel!r} resolves outside the repository")
    if RESERVED & {part.casefold() for part in path.relative_to(root).parts}:
        return Rejection("apply", "path_outside_repo", f"{rel!r} is inside .git or .gen09, "
                         "which candidates may not touch")
    return path


class Snapshot:
    """The pre-generation state of the files candidates touch, read once and cached.
    Opening one first completes any interrupted ``--write`` of the repository."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self._resolved = self.root.resolve()
        self._files: dict[str, SourceFile | Rejection | None] = {}
        self._real: dict[str, str] = {}
        if pending(self._resolved):
            recover(self._resolved)

    def read(self, rel: str) -> SourceFile | Rejection | None:
        """The decoded file, None when it does not exist, or a rejection (outside the repo,
        not a regular file, binary or undecodable). An unreadable file or folder is an
        ``EnvironmentFailure``."""
        if rel not in self._files:
            try:
                self._files[rel] = self._load(rel)
            except OSError as exc:
                raise EnvironmentFailure(f"cannot read {rel} in {self.root}: {why(exc)}") from None
        return self._files[rel]

    def real(self, rel: str) -> str:
        """The repo-relative path of the real file ``rel`` names (symlinks resolved); call
        after ``read`` returned no rejection."""
        return self._real[rel]

    def _load(self, rel: str) -> SourceFile | Rejection | None:
        path = resolve(self.root, rel)
        if isinstance(path, Rejection):
            return path
        self._real[rel] = path.relative_to(self._resolved).as_posix()
        if not path.exists():
            return _creatable(rel, path)
        if not path.is_file():
            return Rejection("apply", "not_text", f"{rel} is not a regular file")
        if path.stat().st_size > MAX_FILE_BYTES:
            return Rejection("apply", "not_text", f"{rel} is larger than {MAX_FILE_BYTES} bytes")
        return decode(rel, path.read_bytes())


def _creatable(rel: str, path: Path) -> Rejection | None:
    """None when ``path`` could be created: its nearest existing ancestor is a folder."""
    parent = path.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        return Rejection("apply", "parent_not_directory",
                         f"{rel}: {parent.name} is an existing file, not a folder")
    return None


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


def why(exc: BaseException) -> str:
    """A one-line reason for an OS-level failure (``No space left on device``)."""
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return text.split("\n")[0] or type(exc).__name__
