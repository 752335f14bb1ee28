"""Pinning line-based edits (unified-diff hunks, apply_patch chunks, editor inserts) to the
lines they change, before stage (d)'s applicator sees them.

A hunk's old side — its context and removed lines — must occur exactly once as whole lines
of the original file (inside the target span when one is given, after its ``@@`` anchors
when it has them); line numbers are never used. The result is an ordinary search/replace
whose ``span`` is exactly the matched lines, so the applicator, the overlap check and
everything after it are the same for every format.
"""

from __future__ import annotations

from attrs import evolve

from gen09_core.models import Edit, Rejection, SourceFile, Span


def resolve(source: SourceFile, edits: tuple[Edit, ...], span: Span | None) -> tuple[Edit, ...] | Rejection:
    """``edits`` with every ``locate``-marked edit pinned to its lines of ``source`` (other
    edits unchanged), or the rejection of the first that cannot be pinned uniquely."""
    out = []
    for number, edit in enumerate(edits, 1):
        if edit.locate is None:
            out.append(edit)
            continue
        pinned = _pin(source, edit, span, number)
        if isinstance(pinned, Rejection):
            return pinned
        out.append(pinned)
    return tuple(out)


def _pin(source: SourceFile, edit: Edit, span: Span | None, number: int) -> Edit | Rejection:
    text, where = source.text, f"edit {number} on {source.path}"
    lines = text.split("\n")
    ends_open = lines[-1] != ""  # the last line has no terminator (or the file is empty)
    body = [line + "\n" for line in lines[:-1]] + ([lines[-1]] if ends_open else [])
    crlf = "\r\n" in text and "\n" not in text.replace("\r\n", "")
    loc = edit.locate
    if loc.after_line is not None:
        if span and not span.start - 1 <= loc.after_line <= span.end:
            return _reject("outside_span", f"{where}: insert_line {loc.after_line} is outside span "
                           f"[{span.start}, {span.end}]")
        return _insert(edit, body, crlf, where)
    search, replace = edit.search or "", edit.replace or ""
    adapt = crlf and "\r" not in search
    wanted = _split(search)
    key = _keyer(adapt, loc.loose_eol)
    have = [key(line) for line in body]
    lo, hi = (span.start - 1, span.end) if span else (0, len(body))
    for anchor in loc.anchors:
        hits = [k for k in range(lo, hi) if body[k].strip() == anchor.strip()]
        if not hits:
            return _reject("no_match", f"{where}: the @@ anchor {anchor.strip()!r} does not occur"
                           + (f" after line {lo}" if lo else "") + _outside(span, body, anchor))
        if len(hits) > 1:
            return _reject("ambiguous_match", f"{where}: the @@ anchor {anchor.strip()!r} matches "
                           f"{len(hits)} lines ({', '.join(str(k + 1) for k in hits[:5])})")
        lo = hits[0] + 1
    if not wanted:
        return _empty_old_side(edit, body, lo, loc, crlf, where, text)
    want = [key(line) for line in wanted]
    m = len(want)
    starts = [k for k in _matches(have, want, lo, hi) if not loc.at_end or k + m == len(body)]
    if not starts:
        anywhere = _matches(have, want, 0, len(body))
        if anywhere and span:
            return _reject("outside_span", f"{where}: the hunk matches at line {anywhere[0] + 1}, outside "
                           f"span [{span.start}, {span.end}]")
        return _reject("no_match", f"{where}: the hunk's context and removed lines do not occur"
                       + (" at the end of the file" if loc.at_end else "") + _hint(body, wanted))
    if len(starts) > 1:
        return _reject("ambiguous_match", f"{where}: the hunk matches {len(starts)} times (lines "
                       f"{', '.join(str(k + 1) for k in starts[:5])})")
    k = starts[0]
    matched = "".join(body[k:k + m])
    new = _adapt(replace, adapt)
    if loc.loose_eol:
        new = _loose(new, matched)
    if loc.loose_eol and ends_open and k + m == len(body) and not new and k:
        # the replacement removes the file's last lines: the newline before them goes too
        matched = body[k - 1][-1 - (body[k - 1].endswith("\r\n")):] + matched
        return evolve(edit, search=matched, replace=new, span=Span(k, k + m), locate=None)
    return evolve(edit, search=matched, replace=new, span=Span(k + 1, k + m), locate=None)


def line_matches(text: str, search: str, loose: bool = False) -> list[int]:
    """The 0-based line numbers where ``search``'s whole lines occur in ``text``, compared as
    ``resolve`` compares them (``loose``: without terminators, as V4A chunks)."""
    body = split_lines(text)
    crlf = "\r\n" in text and "\n" not in text.replace("\r\n", "")
    key = _keyer(crlf and "\r" not in search, loose)
    wanted = [key(line) for line in split_lines(search)]
    return _matches([key(line) for line in body], wanted, 0, len(body)) if wanted else []


def split_lines(text: str) -> list[str]:
    """``text`` split after each ``\\n`` only, terminators kept (no empty last piece)."""
    return _split(text)


def _matches(have: list[str], want: list[str], lo: int, hi: int) -> list[int]:
    """Every k in ``[lo, hi - len(want)]`` where ``want`` equals ``have[k:k + len(want)]``."""
    m, first = len(want), want[0]
    return [k for k in range(lo, hi - m + 1) if have[k] == first and have[k:k + m] == want]


def _insert(edit: Edit, body: list[str], crlf: bool, where: str) -> Edit | Rejection:
    """Editor ``insert``: ``replace`` goes as whole lines after line ``after_line``."""
    n = edit.locate.after_line
    if n > len(body):
        return _reject("line_out_of_range", f"{where}: insert_line {n} is past the end of the file "
                       f"({len(body)} lines)")
    block = _adapt(edit.replace or "", crlf)
    if not body:
        return Edit(edit.file, content=block)
    newline = "\r\n" if crlf else "\n"
    if block and not block.endswith("\n"):
        block += newline
    if n == 0:
        return evolve(edit, search=body[0], replace=block + body[0], span=Span(1, 1), locate=None)
    line = body[n - 1]
    if not line.endswith("\n"):  # after the last line, which has no newline: keep it that way
        block = newline + block[:-len(newline)] if block else block
    return evolve(edit, search=line, replace=line + block, span=Span(n, n), locate=None)


def _empty_old_side(edit, body, lo, loc, crlf, where, text) -> Edit | Rejection:
    """A hunk with no context or removed lines: after its last anchor, at the end of the
    file (V4A with ``*** End of File``), or filling an empty file; otherwise unlocatable."""
    replace = _adapt(edit.replace or "", crlf and "\r" not in (edit.replace or ""))
    if not text:
        return Edit(edit.file, content=replace)
    if loc.anchors:
        k = lo - 1
    elif loc.at_end:
        k = len(body) - 1
    else:
        return _reject("empty_search", f"{where}: the hunk has no context or removed lines to locate it "
                       "(line numbers are never trusted alone)")
    line = body[k]
    if not line.endswith("\n") and replace:
        newline = "\r\n" if crlf else "\n"
        replace = newline + (replace[:-len(newline)] if replace.endswith(newline) else replace)
    return evolve(edit, search=line, replace=line + replace, span=Span(k + 1, k + 1), locate=None)


def _split(text: str) -> list[str]:
    pieces = text.split("\n")
    last = pieces.pop()
    return [p + "\n" for p in pieces] + ([last] if last else [])


def _keyer(adapt: bool, loose: bool):
    """How file lines and hunk lines are compared: exactly, with CRLF read as LF in a CRLF
    file when the hunk is LF, and without terminators for V4A."""
    def key(line: str) -> str:
        if adapt and line.endswith("\r\n"):
            line = line[:-2] + "\n"
        if loose:
            line = line[:-2] if line.endswith("\r\n") else line[:-1] if line.endswith("\n") else line
        return line
    return key


def _adapt(text: str, crlf: bool) -> str:
    return text.replace("\n", "\r\n") if crlf and "\r" not in text else text


def _loose(new: str, matched: str) -> str:
    """V4A lines end with a newline; at a file end without one the replacement keeps that."""
    if matched.endswith("\n") or not new:
        return new
    return new[:-2] if new.endswith("\r\n") else new[:-1] if new.endswith("\n") else new


def _hint(body: list[str], wanted: list[str]) -> str:
    first = next((w.strip() for w in wanted if w.strip()), "")
    for k, line in enumerate(body):
        if first and line.strip() == first:
            return f" (its first line appears at line {k + 1}; the rest differs)"
    return ""


def _outside(span, body, anchor) -> str:
    if span and any(line.strip() == anchor.strip() for line in body):
        return f" inside span [{span.start}, {span.end}]"
    return ""


def _reject(reason: str, detail: str) -> Rejection:
    return Rejection("apply", reason, detail)
