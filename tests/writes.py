"""Helpers shared by the write tests: a repository, a multi-file candidate, and the checks
that after any fault the targets are all old or all new with nothing left behind."""

import json
import subprocess
from pathlib import Path

from gen09_core.journal import journal_dir

NEW_FILES = ("pkg/new/deep/made.txt", "pkg/other/made2.txt")
CREATED_DIRS = ("pkg/new", "pkg/new/deep", "pkg/other")


def make_repo(root: Path, files: int = 3, lines: int = 50, git: bool = True) -> dict[str, bytes]:
    """``root`` with ``pkg/fN.txt`` files (a git repository unless ``git`` is false);
    returns each file's bytes."""
    root.mkdir(parents=True, exist_ok=True)
    original = {}
    for n in range(files):
        rel = f"pkg/f{n}.txt"
        data = "".join(f"file {n} line {k}\n" for k in range(lines)).encode()
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
        original[rel] = data
    if git:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    return original


def batch(original: dict[str, bytes], tag: str = "new", line: int = 1, create: bool = True) -> dict:
    """A candidates.json with one candidate ``m``: edits line ``line`` of every file and
    (with ``create``) creates ``NEW_FILES``, in folders that do not exist yet."""
    edits = []
    for rel in original:
        n = rel.removeprefix("pkg/f").removesuffix(".txt")
        edits.append({"file": rel, "search": f"file {n} line {line}\n",
                      "replace": f"file {n} line {line} {tag}\n"})
    edits += [{"file": rel, "content": f"{tag} {rel}\n"} for rel in NEW_FILES if create]
    return {"version": 1, "candidates": [{"id": "m", "edits": edits}]}


def expected_new(original: dict[str, bytes], tag: str = "new", line: int = 1,
                 create: bool = True) -> dict[str, bytes]:
    """The bytes every target holds once ``batch(original, tag, line)`` is written."""
    new = {}
    for rel, data in original.items():
        n = rel.removeprefix("pkg/f").removesuffix(".txt")
        new[rel] = data.replace(f"file {n} line {line}\n".encode(),
                                f"file {n} line {line} {tag}\n".encode())
    new.update({rel: f"{tag} {rel}\n".encode() for rel in NEW_FILES if create})
    return new


def write_batch(path: Path, data: dict) -> Path:
    """Save a candidates.json; returns its path."""
    path.write_text(json.dumps(data))
    return path


def targets_state(root: Path, original: dict, new: dict) -> str:
    """``old`` or ``new`` when every target is entirely so (and, for old, the created
    folders are gone), else a description of the mix."""
    have = {rel: (root / rel).read_bytes() if (root / rel).exists() else None for rel in new}
    if all(have[rel] == original.get(rel) for rel in new) and \
            not any((root / d).exists() for d in CREATED_DIRS):
        return "old"
    if all(have[rel] == new[rel] for rel in new):
        return "new"
    return "mixed: " + ", ".join(
        f"{rel}={'old' if have[rel] == original.get(rel) else 'new' if have[rel] == new[rel] else 'other'}"
        for rel in new) + f"; dirs {[d for d in CREATED_DIRS if (root / d).exists()]}"


def leftovers(root: Path) -> list[str]:
    """gen09 temp files anywhere in the tree, and the journal folder if it exists."""
    found = [str(p.relative_to(root)) for p in root.rglob("*.gen09")]
    if journal_dir(root.resolve()).exists():
        found.append(str(journal_dir(root.resolve())))
    return found


def reset(root: Path, original: dict, new: dict) -> None:
    """Put the repository back to ``original`` (after a write that landed)."""
    for rel in new:
        (root / rel).unlink(missing_ok=True)
    for rel, data in original.items():
        (root / rel).write_bytes(data)
    for folder in reversed(CREATED_DIRS):
        if (root / folder).exists():
            (root / folder).rmdir()
