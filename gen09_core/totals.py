"""The one way gen09 totals counts and costs: a total with an unknown part is unknown."""

from __future__ import annotations

from collections.abc import Iterable


def known_total(values: Iterable[float | int | None]) -> float | int | None:
    """The sum of ``values``, or None (unknown) when any of them is None; never a partial sum."""
    values = list(values)
    return None if any(v is None for v in values) else sum(values)
