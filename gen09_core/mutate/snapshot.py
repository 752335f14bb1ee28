"""Folders that travel to another machine: a deterministic tarball of a folder (what the Ray
executor puts in the object store once per run), and its materialisation on the worker's
side, into a folder of the worker's own (``GEN09_RAY_WORK``, else the system temp folder),
once per content digest. Nothing assumes a shared filesystem: the worker never reads the
driver's paths.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from attrs import frozen

READY = ".gen09-snapshot-ready"
ENV_WORK = "GEN09_RAY_WORK"


@frozen
class Snapshot:
    """A packed folder: the SHA-256 of its tarball and the tarball's bytes."""

    digest: str
    data: bytes


def pack(folder: Path) -> Snapshot:
    """Pack ``folder`` (files, folders and symlinks, sorted, with their modes and mtimes) into
    an uncompressed tarball; the same folder gives the same bytes."""
    folder = Path(folder)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in _walk(folder):
            info = tar.gettarinfo(str(path), arcname=path.relative_to(folder).as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            if info.isfile():
                with open(path, "rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    data = buffer.getvalue()
    return Snapshot(hashlib.sha256(data).hexdigest()[:24], data)


def signature(folder: Path) -> tuple:
    """A cheap fingerprint of ``folder`` (every entry's path, size and mtime): the driver
    re-packs a folder only when it changed."""
    folder = Path(folder)
    return tuple((p.relative_to(folder).as_posix(), *_stat(p)) for p in _walk(folder))


def _stat(path: Path) -> tuple:
    info = os.lstat(path)
    return info.st_size, info.st_mtime_ns, info.st_mode


def _walk(folder: Path) -> list[Path]:
    out = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        base = Path(root)
        for name in list(dirs):
            if (base / name).is_symlink():
                out.append(base / name)  # kept as a link, not followed
                dirs.remove(name)
            else:
                out.append(base / name)
        out.extend(base / name for name in sorted(files))
    return sorted(out, key=lambda p: p.relative_to(folder).as_posix())


def work_root() -> Path:
    """This node's folder for gen09's Ray work: ``$GEN09_RAY_WORK``, else
    ``<temp>/gen09-ray-<uid>``."""
    root = os.environ.get(ENV_WORK) or str(Path(tempfile.gettempdir()) / f"gen09-ray-{os.getuid()}")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def materialise(snapshot_digest: str, data: bytes, root: Path | None = None) -> Path:
    """The folder holding the snapshot on this node, extracted once per digest (concurrent
    tasks on one node wait for one extraction)."""
    base = Path(root or work_root()) / "snapshots"
    base.mkdir(parents=True, exist_ok=True)
    target = base / snapshot_digest
    with open(base / f"{snapshot_digest}.lock", "w") as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)
        if not (base / f"{snapshot_digest}{READY}").exists():
            if hashlib.sha256(data).hexdigest()[:24] != snapshot_digest:
                raise ValueError(f"snapshot {snapshot_digest}: the bytes received do not match its digest")
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir()
            with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
                tar.extractall(target, filter="tar")
            (base / f"{snapshot_digest}{READY}").write_text("ok\n")
    return target
