"""Stage (d), mechanical edit application (Spec 09 §3.4): locate, require a unique match,
replace. Every candidate is applied in memory to the same pre-generation snapshot."""

from __future__ import annotations

from gen09_core import hookimpl
from gen09_core.models import Applied, Candidate, ChangedFile, Edit, Rejection, SourceFile, Span
from gen09_core.repo import Snapshot


@hookimpl(trylast=True)
def gen09_apply_edits(source: SourceFile, edits: tuple[Edit, ...], span: Span | None):
    """Exact matching: each search block must occur exactly once (inside ``span`` when
    given) in the original text; edits of one file must not overlap."""
    text = source.text
    crlf = "\r\n" in text and "\n" not in text.replace("\r\n", "")
    if any(e.whole_file for e in edits):
        if len(edits) > 1:
            return _reject("overlapping_edits", f"{source.path}: a whole-file edit is combined "
                           "with other edits of the same file")
        return _newlines(edits[0].content, crlf)
    lo, hi = _bounds(text, span) if span else (0, len(text))
    regions = []
    for number, edit in enumerate(edits, 1):
        adapt = crlf and "\r" not in (edit.search or "")
        search = _newlines(edit.search or "", adapt)
        if not search:
            return _reject("empty_search", f"edit {number} on {source.path} has an empty search block")
        hits = _occurrences(text, search)
        inside = [h for h in hits if lo <= h and h + len(search) <= hi]
        if not inside:
            if hits:
                return _reject("outside_span", f"edit {number}: the search block matches "
                               f"{source.path} at line {_line(text, hits[0])}, outside span "
                               f"[{span.start}, {span.end}]")
            return _reject("no_match", f"edit {number}: the search block does not occur in "
                           f"{source.path}{_near_miss(text, search)}")
        if len(inside) > 1:
            lines = ", ".join(str(_line(text, h)) for h in inside[:5])
            return _reject("ambiguous_match", f"edit {number}: the search block matches "
                           f"{source.path} {len(inside)} times (lines {lines})")
        regions.append((inside[0], inside[0] + len(search), _newlines(edit.replace or "", adapt)))
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
    return "".join(pieces)


def apply_candidate(registry, snapshot: Snapshot, candidate: Candidate, target) -> Applied | Rejection:
    """Apply one candidate to the snapshot in memory; same input → same bytes or the same
    rejection."""
    by_file: dict[str, list[Edit]] = {}
    for edit in candidate.edits:
        by_file.setdefault(edit.file, []).append(edit)
    changed = []
    for path, edits in by_file.items():
        source = snapshot.read(path)
        if isinstance(source, Rejection):
            return source
        if source is None:
            if len(edits) == 1 and edits[0].whole_file:
                changed.append(ChangedFile(path, None, edits[0].content))
                continue
            return _reject("file_missing", f"{path} does not exist in the repository")
        span = target.span if target is not None and target.file == path else None
        result = registry.hook.gen09_apply_edits(source=source, edits=tuple(edits), span=span)
        if isinstance(result, Rejection):
            return result
        if result != source.text:
            changed.append(ChangedFile(path, source, result, source.bom))
    if not changed:
        return _reject("no_change", "the candidate leaves every file byte-identical")
    return Applied(candidate, tuple(changed))


def line_offsets(text: str) -> list[int]:
    """Offset of the start of each ``\\n``-terminated line (line N starts at
    ``offsets[N - 1]``), plus a final entry equal to ``len(text)``."""
    offsets = [0]
    at = text.find("\n")
    while at != -1:
        offsets.append(at + 1)
        at = text.find("\n", at + 1)
    if offsets[-1] != len(text) or len(offsets) == 1:
        offsets.append(len(text))
    return offsets


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
    first = next((ln.strip() for ln in search.splitlines() if ln.strip()), "")
    lines = [n for n, ln in enumerate(text.split("\n"), 1) if first and ln.strip() == first]
    if not lines:
        return ""
    return f" (its first line appears at line {lines[0]}; the rest of the block differs)"


def _newlines(text: str, crlf: bool) -> str:
    """LF-written text adapted to a CRLF file; text that already carries CR is kept as is."""
    return text.replace("\n", "\r\n") if crlf and "\r" not in text else text


def _reject(reason: str, detail: str) -> Rejection:
    return Rejection("apply", reason, detail)
