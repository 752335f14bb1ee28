"""The anti-contamination scan of a learner snapshot: nothing in it may give the fix away.

A snapshot leaks when it holds a VCS or cache folder, a backup or compiled file, a hidden
(FAIL_TO_PASS) test file, a file equal to the pristine version of a changed file, a pristine
entity block, or something that looks like a credential.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

CREDENTIAL_NAMES = re.compile(
    r"^(\.env(\..*)?|\.netrc|\.pypirc|\.npmrc|\.git-credentials|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|"
    r".*\.(key|p12|pfx|keystore)|credentials(\.json)?|secrets?\.(json|ya?ml|toml))$")  # a .pem: by content
CREDENTIAL_TEXT = re.compile(
    r"AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|"
    # a private key's PEM block: its header, then key material (in a string literal, maybe after
    # header fields), not the header alone, which a key parser and its documentation name
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?:\\n|[\s\"'+(,]|[\w-]+: [^\n]*)*[A-Za-z0-9+/]{40}|"
    r"xox[abpr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9]{32,}")
TRACE_SUFFIXES = (".pyc", ".pyo", ".orig", ".rej", ".bak", ".swp", ".swo", "~")
TRACE_DIRS = {".git", ".hg", ".svn", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


def is_trace(rel: str) -> bool:
    """True for a backup, swap or compiled file (``x.py.orig``, ``.x.py.swp``, ``x.pyc``)."""
    return rel.endswith(TRACE_SUFFIXES)


def is_credential(rel: str, data: bytes) -> bool:
    """True when a file looks like a credential by its name or its content."""
    if CREDENTIAL_NAMES.match(PurePosixPath(rel).name):
        return True
    return bool(CREDENTIAL_TEXT.search(data.decode("utf-8", "replace")))


def entity_block(text: str, span: tuple[int, int]) -> str:
    """The source lines of an entity (for the pristine-trace scan)."""
    lines = text.splitlines(keepends=True)
    return "".join(lines[span[0] - 1:span[1]])


def _own_copies(rel: str, block: str, pristine: dict[str, str], origin: Path | None) -> int:
    """How many copies of the pristine entity ``block`` the repository itself has in ``rel``,
    the changed entity not counted: duplicated code is the repository's, not a leak
    (freezegun 1.5.1's two identical ``move_to`` methods)."""
    if rel in pristine:
        return pristine[rel].count(block) - 1
    source = Path(origin) / rel if origin is not None else None
    if source is None or not source.is_file():
        return 0
    return source.read_text(encoding="utf-8", errors="replace").count(block)


def scan_snapshot(root: Path, pristine: dict[str, str], blocks: list[str], hidden: list[str],
                  origin: Path | None = None) -> list[str]:
    """Leaks in a learner snapshot: VCS folders, caches and backup files, F2P test files,
    any file equal to a pristine changed file, a pristine entity block more often than the
    repository at ``origin`` has it, credentials."""
    problems = []
    root = Path(root)
    pristine_bytes = {text.encode("utf-8") for text in pristine.values()}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if set(PurePosixPath(rel).parts) & TRACE_DIRS:
            problems.append(f"{rel}: VCS or cache folder")
            continue
        if not path.is_file():
            continue
        if is_trace(rel):
            problems.append(f"{rel}: backup or compiled file")
        if rel in hidden:
            problems.append(f"{rel}: hidden test file")
        data = path.read_bytes()
        if data in pristine_bytes:
            problems.append(f"{rel}: identical to the pristine source")
        text = data.decode("utf-8", "replace")
        for block in blocks:
            if block and block in text and text.count(block) > _own_copies(rel, block, pristine, origin):
                problems.append(f"{rel}: contains the pristine code")
                break
        if is_credential(rel, data):
            problems.append(f"{rel}: credential")
    return problems
