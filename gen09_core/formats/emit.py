"""Emitting a valid candidate in any text format: ``udiff``, ``apply_patch`` or
``search_replace``, as a ``candidates.json`` record that ``gen09 apply`` takes back and turns
into the same bytes.

Every hunk (or search block) is widened with context lines until its old side occurs exactly
once in the file — by gen09's own matching rules for that format — so re-applying it can
never be ambiguous; line numbers are written but, as always, not needed. In a CRLF file a
block is widened until it holds a CR, so no line-ending adaptation happens on the way back.
V4A has no "no newline at end of file" marker and strips a CR before each line's end: a
change of a file's final-newline state, or a CR at a line's end in a file that is not CRLF
throughout, is ``NotRepresentable`` in ``apply_patch``.
"""

from __future__ import annotations

import difflib

from gen09_core.formats import NotRepresentable
from gen09_core.locate import line_matches, split_lines
from gen09_core.models import Applied, ChangedFile


def emit(applied: Applied, fmt: str) -> dict:
    """The candidates.json record of ``applied`` in ``fmt`` (``{"id", "patch"}`` or
    ``{"id", "edits"}``); ``NotRepresentable`` when ``fmt`` cannot express it exactly."""
    files = _files(applied)
    if fmt == "udiff":
        return {"id": applied.candidate.id, "patch": "".join(_udiff(c) for c in files)}
    if fmt == "apply_patch":
        body = "".join(_v4a(c) for c in files)
        return {"id": applied.candidate.id, "patch": f"*** Begin Patch\n{body}*** End Patch\n"}
    if fmt == "search_replace":
        return {"id": applied.candidate.id, "edits": [e for c in files for e in _search_replace(c)]}
    raise ValueError(f"cannot emit format {fmt!r}")


def emit_batch(outcomes, fmt: str) -> tuple[dict, list[tuple[str, str]]]:
    """A candidates.json batch of the valid ``outcomes`` in ``fmt``, and the ``(id, why)``
    of each valid candidate the format cannot express."""
    records, skipped = [], []
    for outcome in outcomes:
        if outcome.status != "valid":
            continue
        try:
            records.append(emit(outcome.applied, fmt))
        except NotRepresentable as exc:
            skipped.append((outcome.id, str(exc)))
    return {"version": 1, "format": fmt, "candidates": records}, skipped


def _files(applied: Applied) -> list[ChangedFile]:
    moved = {f.moved_from for f in applied.files if f.moved_from}
    return [f for f in applied.files if not (f.deleted and f.path in moved)]


def _regions(old: list[str], new: list[str], unique) -> list[list[int]]:
    """``[a0, a1, b0, b1]`` line ranges of old and new that differ, each widened one equal
    line at a time (up and down in turn) until ``unique(a0, a1)`` holds; a region that
    reaches its neighbour merges with it."""
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    regions: list[list] = []
    for tag, a0, a1, b0, b1 in ops:
        if tag == "equal":
            continue
        if regions and regions[-1][1] == a0 and regions[-1][3] == b0:
            regions[-1][1], regions[-1][3] = a1, b1
        else:
            regions.append([a0, a1, b0, b1, True])
    while True:
        for i, r in enumerate(regions):
            if unique(r[0], r[1]) or (r[0] == 0 and r[1] == len(old)):
                continue
            up, r[4] = r[4], not r[4]
            if (up and r[0] > 0) or r[1] >= len(old):
                if i and regions[i - 1][1] == r[0]:
                    regions[i - 1][1:4:2] = [r[1], r[3]]
                    del regions[i]
                else:
                    r[0], r[2] = r[0] - 1, r[2] - 1
            elif i + 1 < len(regions) and regions[i + 1][0] == r[1]:
                r[1], r[3] = regions[i + 1][1], regions[i + 1][3]
                del regions[i + 1]
            else:
                r[1], r[3] = r[1] + 1, r[3] + 1
            break
        else:
            return [r[:4] for r in regions]


def _unique_lines(old: list[str], text: str, loose: bool, crlf: bool):
    def unique(a0: int, a1: int) -> bool:
        if a0 == a1:
            return not old  # an empty old side only locates in an empty file
        block = "".join(old[a0:a1])
        if crlf and "\r" not in block:
            return False
        return line_matches(text, block, loose) == [a0]
    return unique


def _crlf(text: str) -> bool:
    return "\r\n" in text and "\n" not in text.replace("\r\n", "")


def _udiff(changed: ChangedFile) -> str:
    from gen09_core.pipeline import git_header

    was = changed.moved_from or changed.path
    out = [git_header(changed)]
    old_text = "" if changed.original is None else changed.old_text
    new_text = "" if changed.deleted else changed.new_text
    if old_text == new_text:
        return "".join(out)
    old, new = split_lines(old_text), split_lines(new_text)
    out.append(f"--- {'/dev/null' if changed.original is None else 'a/' + was}\n")
    out.append(f"+++ {'/dev/null' if changed.deleted else 'b/' + changed.path}\n")
    if changed.original is None or changed.deleted:
        regions = [[0, len(old), 0, len(new)]]
    else:
        regions = _regions(old, new, _unique_lines(old, old_text, False, _crlf(old_text)))
    for a0, a1, b0, b1 in regions:
        out.append(f"@@ -{a0 + (a1 > a0)},{a1 - a0} +{b0 + (b1 > b0)},{b1 - b0} @@\n")
        for prefix, lines in _hunk_lines(old, new, a0, a1, b0, b1):
            for line in lines:
                out.append(prefix + line if line.endswith("\n")
                           else f"{prefix}{line}\n\\ No newline at end of file\n")
    return "".join(out)


def _hunk_lines(old, new, a0, a1, b0, b1):
    """The hunk's lines as (prefix, lines) runs: context, removed, added, in diff order."""
    ops = difflib.SequenceMatcher(None, old[a0:a1], new[b0:b1], autojunk=False).get_opcodes()
    for tag, i0, i1, j0, j1 in ops:
        if tag == "equal":
            yield " ", old[a0 + i0:a0 + i1]
        else:
            yield "-", old[a0 + i0:a0 + i1]
            yield "+", new[b0 + j0:b0 + j1]


def _v4a(changed: ChangedFile) -> str:
    if changed.deleted:
        return f"*** Delete File: {changed.path}\n"
    new = split_lines(changed.new_text)
    if changed.original is None:
        if changed.new_text and not changed.new_text.endswith("\n"):
            raise NotRepresentable(f"{changed.path}: apply_patch cannot add a file without a final newline")
        return f"*** Add File: {changed.path}\n" + "".join("+" + _bare(line, False, changed.path) + "\n"
                                                        for line in new)
    old_text = changed.old_text
    crlf = _crlf(old_text)
    was = changed.moved_from or changed.path
    head = f"*** Update File: {was}\n" + (f"*** Move to: {changed.path}\n" if changed.moved_from else "")
    if old_text == changed.new_text:
        return head
    if old_text and old_text.endswith("\n") != changed.new_text.endswith("\n"):
        raise NotRepresentable(f"{changed.path}: apply_patch cannot change whether the file ends with a "
                               "newline")
    if not old_text and changed.new_text and not changed.new_text.endswith("\n"):
        raise NotRepresentable(f"{changed.path}: apply_patch cannot fill a file without a final newline")
    old = split_lines(old_text)
    out = [head]
    for a0, a1, b0, b1 in _regions(old, new, _unique_lines(old, old_text, True, crlf)):
        out.append("@@\n")
        for prefix, lines in _hunk_lines(old, new, a0, a1, b0, b1):
            for line in lines:
                out.append(prefix + _bare(line, crlf, changed.path) + "\n")
    return "".join(out)


def _bare(line: str, crlf: bool, path: str) -> str:
    """A V4A line's content: the line without its terminator (CRLF in a CRLF file)."""
    if crlf and line.endswith("\r\n"):
        line = line[:-2]
    elif line.endswith("\n"):
        if crlf:
            raise NotRepresentable(f"{path}: apply_patch cannot put a LF-only line in a CRLF file")
        line = line[:-1]
    if line.endswith("\r"):
        raise NotRepresentable(f"{path}: apply_patch cannot express a CR at the end of a line")
    return line


def _search_replace(changed: ChangedFile) -> list[dict]:
    if changed.deleted:
        return [{"file": changed.path, "delete": True}]
    if changed.original is None:
        return [{"file": changed.path, "content": changed.new_text}]
    was = changed.moved_from or changed.path
    edits = []
    old_text, new_text = changed.old_text, changed.new_text
    if old_text != new_text:
        if not old_text:
            edits.append({"file": was, "content": new_text})
        else:
            old, new = split_lines(old_text), split_lines(new_text)
            crlf = _crlf(old_text)

            def unique(a0: int, a1: int) -> bool:
                block = "".join(old[a0:a1])
                if not block or (crlf and "\r" not in block):
                    return False
                return _occurs_once(old_text, block)

            for a0, a1, b0, b1 in _regions(old, new, unique):
                edits.append({"file": was, "search": "".join(old[a0:a1]), "replace": "".join(new[b0:b1])})
    if changed.moved_from:
        edits.append({"file": was, "move_to": changed.path})
    return edits


def _occurs_once(text: str, block: str) -> bool:
    """True when ``block`` occurs once in ``text``, counting overlapping occurrences."""
    first = text.find(block)
    return first != -1 and text.find(block, first + 1) == -1
