"""The ``udiff`` input format: a unified diff (plain or git-style) over one or more files.

Each hunk becomes one line-based search/replace edit: its context and removed lines are the
search block, its context and added lines the replacement, located later by
``gen09_core.locate`` (exactly once, no fuzz; ``@@`` line numbers are hints only: they never
place a hunk). ``--- /dev/null`` creates a file, ``+++ /dev/null`` deletes one (its removed
lines must be the whole file), git's ``rename from`` / ``rename to`` (or differing old and
new paths) rename one. ``a/`` and ``b/`` prefixes are removed when the diff uses them (a git
header, or both sides prefixed). Lines are split on ``\\n`` only; ``\\ No newline at end of
file`` is honoured. A hunk's line counts only tell a blank context line from the hunk's end,
and a patch that ends before its last hunk has all the lines its header promises is
truncated (malformed). Text before the first file header is ignored (as ``git apply`` does).
"""

from __future__ import annotations

import re

from gen09_core.formats import MalformedPatch
from gen09_core.models import Edit, Locate

_HUNK = re.compile(r"^@@ -?(\d+)?(?:,(\d+))? ?\+?(\d+)?(?:,(\d+))? ?@@")
_GIT = re.compile(r"^diff --git ")
DEV_NULL = "/dev/null"


def parse(text: str) -> tuple[Edit, ...]:
    """The edits of unified diff ``text``; ``MalformedPatch`` names the failing line."""
    if not isinstance(text, str):
        raise MalformedPatch(1, "the patch must be a string")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    n = 0
    while n < len(lines) and not (_GIT.match(lines[n]) or _file_header(lines, n)):
        n += 1
    if n == len(lines):
        raise MalformedPatch(max(len(lines), 1), "no file header ('--- a/PATH' then '+++ b/PATH', or "
                             "'diff --git') in the patch")
    edits: list[Edit] = []
    while n < len(lines):
        n = _section(lines, n, edits)
    return tuple(edits)


def _file_header(lines: list[str], n: int) -> bool:
    return (lines[n].startswith("--- ") and n + 1 < len(lines) and lines[n + 1].startswith("+++ "))


def _section(lines: list[str], n: int, edits: list[Edit]) -> int:
    """Parse one file's section starting at line index ``n``; return the next section's."""
    start = n
    git = bool(_GIT.match(lines[n]))
    rename_from = rename_to = None
    created = deleted = False
    old = new = None
    if git:
        n += 1
        while n < len(lines) and not lines[n].startswith(("--- ", "@@", "diff ")):
            head = lines[n].rstrip("\r")
            if head.startswith("rename from "):
                rename_from = _unquote(head[len("rename from "):], n)
            elif head.startswith("rename to "):
                rename_to = _unquote(head[len("rename to "):], n)
            elif head.startswith("new file mode"):
                created = True
            elif head.startswith("deleted file mode"):
                deleted = True
            elif head.startswith(("GIT binary patch", "Binary files ")):
                raise MalformedPatch(n + 1, "binary patches are not supported")
            elif not head.startswith(("index ", "old mode", "new mode", "similarity index",
                                      "dissimilarity index", "copy from", "copy to")):
                raise MalformedPatch(n + 1, f"unexpected line in a git diff header: {head[:80]!r}")
            n += 1
    if n < len(lines) and lines[n].startswith("--- "):
        if not (n + 1 < len(lines) and lines[n + 1].startswith("+++ ")):
            raise MalformedPatch(n + 2, "a '--- ' line must be followed by a '+++ ' line")
        old, new = _path(lines[n][4:], n), _path(lines[n + 1][4:], n + 1)
        n += 2
    elif not git:
        raise MalformedPatch(n + 1, f"expected a file header, got {lines[n][:80]!r}")
    prefixed = git or _prefixed(old, new)
    old = _strip(old, "a/", prefixed)
    new = _strip(new, "b/", prefixed)
    if git and old is None and new is None:  # a git header without ---/+++ (rename, empty file)
        old_git, new_git = _git_paths(lines[start], start)
        old = DEV_NULL if created else (rename_from or old_git)
        new = DEV_NULL if deleted else (rename_to or new_git)
    if old == DEV_NULL and new == DEV_NULL:
        raise MalformedPatch(start + 1, "both sides of the file header are /dev/null")
    hunks: list[tuple[int, str, str]] = []
    while n < len(lines) and lines[n].startswith("@@"):
        n = _hunk(lines, n, hunks)
    if n < len(lines) and not (_GIT.match(lines[n]) or _file_header(lines, n)):
        raise MalformedPatch(n + 1, f"expected a hunk header '@@ ... @@' or the next file, got "
                             f"{lines[n][:80]!r}")
    _edits(old, new, rename_from, rename_to, hunks, start, edits)
    return n


def _edits(old, new, rename_from, rename_to, hunks, start, edits) -> None:
    if old == DEV_NULL:
        if any(search for _, search, _ in hunks):
            raise MalformedPatch(hunks[0][0], "a new file's hunk has context or removed lines")
        edits.append(Edit(new, content="".join(replace for _, _, replace in hunks), create=True))
        return
    if new == DEV_NULL:
        if any(replace for _, _, replace in hunks):
            raise MalformedPatch(hunks[0][0], "a deleted file's hunk has added or context lines")
        edits.append(Edit(old, delete=True, search="".join(s for _, s, _ in hunks) if hunks else None))
        return
    source, dest = rename_from or old, rename_to or new
    if not hunks and source == dest:
        raise MalformedPatch(start + 1, f"the section for {source} has no hunks")
    for _, search, replace in hunks:
        edits.append(Edit(source, search=search, replace=replace, locate=Locate()))
    if source != dest:
        edits.append(Edit(source, move_to=dest))


def _hunk(lines: list[str], n: int, hunks: list) -> int:
    """One hunk from its ``@@`` header at ``n``; counts in the header are only used to tell
    a blank context line (a model's dropped leading space) from the hunk's end."""
    m = _HUNK.match(lines[n])
    if not m:
        raise MalformedPatch(n + 1, f"malformed hunk header {lines[n][:80]!r}")
    old_left = int(m[2]) if m[2] is not None else (1 if m[1] is not None else None)
    new_left = int(m[4]) if m[4] is not None else (1 if m[3] is not None else None)
    header = n + 1
    n += 1
    search: list[str] = []
    replace: list[str] = []
    last = None  # which sides the previous line went to
    while n < len(lines):
        line = lines[n]
        tag = line[:1]
        if tag == "-" and line.startswith("--- ") and _file_header(lines, n) and not old_left:
            break
        if tag == " " or (line == "" and _blank_context(lines, n, old_left, new_left)):
            search.append(line[1:] + "\n")
            replace.append(line[1:] + "\n")
            last, old_left, new_left = "both", _dec(old_left), _dec(new_left)
        elif tag == "-":
            search.append(line[1:] + "\n")
            last, old_left = "old", _dec(old_left)
        elif tag == "+":
            replace.append(line[1:] + "\n")
            last, new_left = "new", _dec(new_left)
        elif tag == "\\":
            if last is None:
                raise MalformedPatch(n + 1, "'\\ No newline at end of file' follows no line")
            for side, lst in (("old", search), ("new", replace)):
                if last in (side, "both"):
                    lst[-1] = lst[-1][:-1]
        else:
            break
        n += 1
    if not search and not replace:
        raise MalformedPatch(header, "the hunk has no lines")
    if n == len(lines) and ((old_left or 0) > 0 or (new_left or 0) > 0):
        raise MalformedPatch(n, f"the patch ends inside the hunk of line {header}: its header promises "
                             f"{max(old_left or 0, new_left or 0)} more line(s) (a truncated patch?)")
    hunks.append((header, "".join(search), "".join(replace)))
    return n


def _blank_context(lines: list[str], n: int, old_left, new_left) -> bool:
    """An empty line inside a hunk is a blank context line whose space was dropped when the
    header's counts say more lines follow or, without counts, when hunk lines follow it."""
    if old_left is not None and new_left is not None:
        return old_left > 0 and new_left > 0
    k = n + 1
    while k < len(lines) and lines[k] == "":
        k += 1
    return k < len(lines) and lines[k][:1] in (" ", "-", "+", "\\") and not _file_header(lines, k)


def _dec(left):
    return None if left is None else left - 1


def _path(raw: str, n: int) -> str:
    raw = raw.rstrip("\r")
    if raw.startswith('"'):
        return _unquote(raw, n)
    raw = raw.split("\t")[0]
    if not raw.strip():
        raise MalformedPatch(n + 1, "a file header without a path")
    return raw.strip() if raw.strip() == DEV_NULL else raw.rstrip(" ")


def _prefixed(old, new) -> bool:
    """True when the diff uses git's ``a/`` and ``b/`` prefixes."""
    return ((old is None or old == DEV_NULL or old.startswith("a/"))
            and (new is None or new == DEV_NULL or new.startswith("b/"))
            and not (old in (None, DEV_NULL) and new in (None, DEV_NULL)))


def _strip(path, prefix: str, prefixed: bool):
    if path is None or path == DEV_NULL or not prefixed:
        return path
    return path[len(prefix):] if path.startswith(prefix) else path


def _git_paths(header: str, n: int) -> tuple[str, str]:
    rest = header.rstrip("\r")[len("diff --git "):]
    if rest.startswith('"'):
        end = _quoted_end(rest, n)
        old, rest = _unquote(rest[:end], n), rest[end:].lstrip(" ")
    else:
        half = rest.find(" b/")
        if half == -1:
            raise MalformedPatch(n + 1, "cannot read the paths of the 'diff --git' line")
        old, rest = rest[:half], rest[half + 1:]
    new = _unquote(rest, n) if rest.startswith('"') else rest
    return _strip(old, "a/", True), _strip(new, "b/", True)


def _quoted_end(text: str, n: int) -> int:
    k = 1
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        if text[k] == '"':
            return k + 1
        k += 1
    raise MalformedPatch(n + 1, "an unterminated quoted path")


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _unquote(raw: str, n: int) -> str:
    """Git's C-style quoted path (``"a/t\\303\\251st"``) → ``a/tést``; unquoted text as is."""
    if not raw.startswith('"'):
        return raw
    if not raw.endswith('"') or len(raw) < 2:
        raise MalformedPatch(n + 1, "an unterminated quoted path")
    body, out, k = raw[1:-1], bytearray(), 0
    while k < len(body):
        ch = body[k]
        if ch != "\\":
            out += ch.encode("utf-8")
            k += 1
        elif body[k + 1:k + 4].isdigit() and len(body[k + 1:k + 4]) == 3:
            out.append(int(body[k + 1:k + 4], 8) & 0xFF)
            k += 4
        elif body[k + 1:k + 2] in _ESCAPES:
            out.append(_ESCAPES[body[k + 1]])
            k += 2
        else:
            raise MalformedPatch(n + 1, f"an unknown escape in the quoted path {raw[:80]!r}")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedPatch(n + 1, "a quoted path that is not UTF-8") from None
