"""Stage (f), normalization + deduplication: candidates whose code differs only in comments
or whitespace are one candidate; the first of them is kept."""

from __future__ import annotations

import functools
import hashlib

from gen09_core.models import Applied


def collapse_whitespace(text: str) -> str:
    """Strip each line, collapse internal whitespace runs to one space, drop empty lines.
    Done per section between two blank lines, and within a section per block between blank
    lines (cut between whole lines, only empty lines are lost, which are dropped anyway),
    each cached: candidates of one large file share all but the changed ones."""
    return "\n".join(filter(None, map(_collapse_section, text.split("\n\n\n"))))


@functools.lru_cache(maxsize=1 << 12)
def _collapse_section(section: str) -> str:
    return "\n".join(filter(None, map(_collapse_block, section.split("\n\n"))))


@functools.lru_cache(maxsize=1 << 14)
def _collapse_block(block: str) -> str:
    return "\n".join(filter(None, (" ".join(line.split()) for line in block.split("\n"))))


def normal_form(registry, applied: Applied) -> str:
    """The comparison form of a candidate: every changed file, comments removed by its
    language pack (when one serves it), whitespace collapsed."""
    parts = []
    for changed in sorted(applied.files, key=lambda f: f.path):
        if changed.deleted:
            parts.append(f"=== {changed.path} (deleted)")
            continue
        language = registry.language_of(changed.path)
        text = None
        if language:
            text = registry.normalize(language, changed.new_text, changed.original and changed.old_text)
        moved = f" (moved from {changed.moved_from})" if changed.moved_from else ""
        form = collapse_whitespace(changed.new_text if text is None else text)
        parts.append(f"=== {changed.path}{moved}\n{form}")
    return "\n".join(parts)


def digest(form: str) -> str:
    """A stable identity for a normal form."""
    return "sha256:" + hashlib.sha256(form.encode("utf-8")).hexdigest()


def dedup(registry, survivors: list[tuple[str, Applied]]) -> list[tuple[str, str | None]]:
    """For each ``(id, applied)`` in order: its digest and the id of the first candidate with
    the same normal form (None for the representative itself)."""
    first: dict[str, str] = {}
    result = []
    for candidate_id, applied in survivors:
        key = digest(normal_form(registry, applied))
        result.append((key, first.get(key)))
        first.setdefault(key, candidate_id)
    return result
