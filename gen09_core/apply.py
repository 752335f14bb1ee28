"""Stage (d), mechanical edit application: locate, require a unique match,
replace. Every candidate is applied in memory to the same pre-generation snapshot."""

from __future__ import annotations

from gen09_core import hookimpl
from gen09_core.models import (
    Applied,
    Candidate,
    Edit,
    Patched,
    Rejection,
    SourceFile,
    Span,
)
from gen09_core.repo import Snapshot
from gen09_core.text import line_offsets


@hookimpl(trylast=True)
def gen09_apply_edits(source: SourceFile, edits: tuple[Edit, ...], span: Span | None, tolerant: bool):
    """Each search block must occur exactly once (inside ``span`` when given) in the original
    text; edits of one file must not overlap. With ``tolerant``, a block with no exact match
    may match whole lines that differ only by a uniform indentation shift and trailing
    whitespace — still exactly once; the tier used is recorded per edit."""
    text = source.text
    crlf = "\r\n" in text and "\n" not in text.replace("\r\n", "")
    if any(e.whole_file for e in edits):
        if len(edits) > 1:
            return _reject("overlapping_edits", f"{source.path}: a whole-file edit is combined "
                           "with other edits of the same file")
        return Patched(_newlines(edits[0].content, crlf), ("whole_file",))
    regions, tiers = [], []
    outer = span
    for number, edit in enumerate(edits, 1):
        span = edit.span or outer  # a line-based format pins each edit to its own lines
        lo, hi = _bounds(text, span) if span else (0, len(text))
        found = _locate(source.path, text, number, edit, crlf, (lo, hi), span, tolerant)
        if isinstance(found, Rejection):
            return found
        regions.append(found[0])
        tiers.append(found[1])
    regions.sort()
    for (_, end, _), (start, _, _) in zip(regions, regions[1:], strict=False):
        if start < end:
            return _reject("overlapping_edits", f"two edits of {source.path} overlap at "
                           f"line {_line(text, start)}")
    pieces, cursor = [], 0
    for start, end, replace in regions:
        pieces += [text[cursor:start], replace]
        cursor = end
    pieces.append(text[cursor:])
    return Patched("".join(pieces), tuple(tiers))


def _locate(path: str, text: str, number: int, edit: Edit, crlf: bool, bounds: tuple[int, int],
            span: Span | None, tolerant: bool) -> tuple[tuple[int, int, str], str] | Rejection:
    """The one region ``(start, end, replacement)`` of ``text`` that edit ``number`` replaces
    inside ``bounds``, with its match tier, or why there is not exactly one."""
    lo, hi = bounds
    adapt = crlf and "\r" not in (edit.search or "")
    search = _newlines(edit.search or "", adapt)
    if not search:
        return _reject("empty_search", f"edit {number} on {path} has an empty search block")
    hits = _occurrences(text, search)
    replace = _newlines(edit.replace or "", adapt)
    inside = [(h, h + len(search), replace) for h in hits if lo <= h and h + len(search) <= hi]
    tier = "exact"
    if not inside and tolerant:
        inside, tier = _tolerant_matches(text, search, replace, lo, hi), "tolerant"
    if not inside:
        if hits:
            return _reject("outside_span", f"edit {number}: the search block matches "
                           f"{path} at line {_line(text, hits[0])}, outside span "
                           f"[{span.start}, {span.end}]")
        return _reject("no_match", f"edit {number}: the search block does not occur in "
                       f"{path}{_near_miss(text, search)}")
    if len(inside) > 1:
        lines = ", ".join(str(_line(text, h[0])) for h in inside[:5])
        return _reject("ambiguous_match", f"edit {number}: the search block matches "
                       f"{path} {len(inside)} times (lines {lines}, {tier} match)")
    return inside[0], tier


def apply_candidate(registry, snapshot: Snapshot, candidate: Candidate, target,
                    tolerant: bool = False) -> Applied | Rejection:
    """Apply one candidate to the snapshot in memory (``gen09_core.apply_files``: file
    operations, path checks, then this module's applicator per file)."""
    from gen09_core.apply_files import apply_candidate as apply_files

    return apply_files(registry, snapshot, candidate, target, tolerant)


def _tolerant_matches(text: str, search: str, replace: str, lo: int, hi: int) -> list:
    """Whole-line windows inside ``[lo, hi)`` equal to ``search`` up to trailing whitespace
    and one uniform indentation shift; each comes with ``replace`` shifted the same way."""
    wanted = search.split("\n")
    ends_with_newline = wanted[-1] == ""
    if ends_with_newline:
        wanted.pop()
    offsets = line_offsets(text)
    lines = text.split("\n")
    first = next((n for n in range(len(offsets) - 1) if offsets[n] >= lo), len(lines))
    matches = []
    for k in range(first, len(lines) - len(wanted) + 1):
        end_line = k + len(wanted) - 1
        if ends_with_newline:
            if end_line + 1 >= len(offsets):
                break
            end = offsets[end_line + 1]
        else:
            end = offsets[end_line] + len(lines[end_line].rstrip())
        if end > hi:
            break
        shift = _shift(lines[k:k + len(wanted)], wanted)
        if shift is not None:
            matches.append((offsets[k], end, _reindent(replace, shift)))
    return matches


def _shift(have: list[str], wanted: list[str]) -> str | int | None:
    """The indentation added (a prefix str) or removed (a count) turning ``wanted`` into
    ``have``, or None when they differ otherwise."""
    shift = None
    for got, want in zip(have, wanted, strict=True):
        got, want = got.rstrip(), want.rstrip()
        if not got or not want:
            if got or want:
                return None
            continue
        if got.lstrip() != want.lstrip():
            return None
        if len(got) >= len(want):
            this = got[: len(got) - len(want)] if got.endswith(want) else None
        else:
            this = len(want) - len(got) if want.endswith(got) else None
        if this is None:
            return None
        if shift is None:
            shift = this
        elif this != shift:
            return None
    return shift


def _reindent(replace: str, shift: str | int | None) -> str:
    if not shift:
        return replace
    out = []
    for line in replace.split("\n"):
        if not line.strip():
            out.append(line)
        elif isinstance(shift, str):
            out.append(shift + line)
        else:
            body = line.lstrip()
            out.append(line[: max(len(line) - len(body) - shift, 0)] + body)
    return "\n".join(out)


def _bounds(text: str, span: Span) -> tuple[int, int]:
    offsets = line_offsets(text)
    last = len(offsets) - 1
    return offsets[min(span.start, last) - 1], offsets[min(span.end, last)]


def _occurrences(text: str, search: str) -> list[int]:
    hits, at = [], text.find(search)
    while at != -1:
        hits.append(at)
        at = text.find(search, at + 1)
    return hits


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _near_miss(text: str, search: str) -> str:
    """A hint for a missed block: where its first line occurs, ignoring indentation."""
    first = next((ln.strip() for ln in search.split("\n") if ln.strip()), "")
    if not first or first not in text:  # no line can be it: skip the scan of a large file
        return ""
    lines = [n for n, ln in enumerate(text.split("\n"), 1) if ln.strip() == first]
    if not lines:
        return ""
    return f" (its first line appears at line {lines[0]}; the rest of the block differs)"


def _newlines(text: str, crlf: bool) -> str:
    """LF-written text adapted to a CRLF file; text that already carries CR is kept as is."""
    return text.replace("\n", "\r\n") if crlf and "\r" not in text else text


def _reject(reason: str, detail: str) -> Rejection:
    return Rejection("apply", reason, detail)
