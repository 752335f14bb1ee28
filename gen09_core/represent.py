"""Stage (b), edit-representation selection: a localized span of at most 40 contiguous lines in
one module is edited with search/replace, anything else as whole files; deterministic, never
a model."""

from __future__ import annotations

from gen09_core import hookimpl
from gen09_core.models import Representation, Target

LOCALIZED_MAX_LINES = 40


@hookimpl(trylast=True)
def gen09_select_representation(target: Target | None, change_files: tuple[str, ...]):
    """Localized edit (≤ 40 contiguous lines inside one module) → search/replace;
    anything else → structural rewrite → whole file. The reason is recorded."""
    if target is None or target.span is None:
        return Representation("structural-rewrite", "whole_file", "no target span bounds the change")
    others = sorted(set(change_files) - {target.file})
    if others:
        return Representation(
            "structural-rewrite", "whole_file",
            f"the change spans a module boundary ({', '.join(others)} besides {target.file})",
        )
    lines = target.span.lines
    if lines > LOCALIZED_MAX_LINES:
        return Representation(
            "structural-rewrite", "whole_file",
            f"span of {lines} lines exceeds {LOCALIZED_MAX_LINES} contiguous lines",
        )
    return Representation(
        "localized-edit", "search_replace",
        f"span of {lines} contiguous lines (≤ {LOCALIZED_MAX_LINES}) inside {target.file}",
    )


def select(registry, target: Target | None, change_files=()) -> Representation:
    """Ask the plugins (the default above runs last) for the representation."""
    return registry.select_representation(target, tuple(sorted(change_files)))


def override(chosen: Representation, fmt: str | None, by: str) -> Representation:
    """``chosen`` with the format ``fmt`` given ``by`` the user, recording what stage (b)
    would have chosen; ``chosen`` itself when no other format is given."""
    if not fmt or fmt == chosen.format:
        return chosen
    return Representation(chosen.classification, fmt, f"format {fmt} given by {by} (stage (b) "
                          f"would choose {chosen.format}: {chosen.reason})")
