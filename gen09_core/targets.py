"""The target check that every entry point runs before any candidate is looked at: the
target a batch or an intent names must exist in the repository as described."""

from __future__ import annotations

from gen09_core.entities import list_entities, match_entity
from gen09_core.errors import BadInput
from gen09_core.models import Target
from gen09_core.repo import Snapshot
from gen09_core.text import line_offsets


def check_target(registry, snapshot: Snapshot, target: Target | None) -> None:
    """The target file must be readable text, its span inside the file and, when an entity
    is named and its pack can locate entities, inside that entity."""
    if target is None or target.file is None:
        return
    source = snapshot.read(target.file)
    if source is None:
        raise BadInput(f"target file {target.file} does not exist in the repository")
    if not hasattr(source, "text"):
        raise BadInput(f"target file {target.file}: {source.detail}")
    if target.span is not None:
        lines = len(line_offsets(source.text)) - 1
        if target.span.end > lines:
            raise BadInput(f"target span [{target.span.start}, {target.span.end}] is past the "
                           f"end of {target.file} ({lines} lines)")
    if target.entity:
        entities = list_entities(registry, target.file, source.text)
        if entities is None:
            return
        found = match_entity(entities, target.entity, target.file)
        if found is None:
            raise BadInput(f"target entity {target.entity} is not defined in {target.file}")
        span = target.span
        if span is not None and not (found.span.start <= span.start and span.end <= found.span.end):
            raise BadInput(f"target span [{span.start}, {span.end}] is not inside "
                           f"{target.entity} (lines {found.span.start}-{found.span.end})")
