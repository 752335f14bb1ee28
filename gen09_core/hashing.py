"""Content digests: of bytes, of one file, and of a folder (the one way gen09 hashes a tree).

A folder's digest feeds, for every file in sorted order, its repo-relative POSIX path, a NUL
byte and the SHA-256 of its bytes; so two folders have the same digest exactly when they
hold the same files with the same bytes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path


def sha256_bytes(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """``sha256:<hex>`` of a file's bytes."""
    return sha256_bytes(Path(path).read_bytes())


def tree_hash(root: Path, files: Iterable[str] | None = None):
    """The running SHA-256 (a ``hashlib`` object, to extend or finish) over ``files``
    (repo-relative POSIX paths, taken in sorted order) of the folder ``root``; without
    ``files``, over every file below it."""
    root = Path(root)
    if files is None:
        files = (p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    digest = hashlib.sha256()
    for rel in sorted(files):
        path = root / rel  # a symbolic link by where it points (a folder's link has no bytes)
        data = b"symlink:" + os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
        digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest


def sha256_tree(root: Path, files: Iterable[str] | None = None) -> str:
    """``sha256:<hex>`` of a folder (or of the listed ``files`` of it), as ``tree_hash``."""
    return "sha256:" + tree_hash(root, files).hexdigest()
