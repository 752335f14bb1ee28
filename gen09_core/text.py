"""Text helpers that no stage owns: line offsets, the lines two versions share, and the
BOM-aware UTF-8 encoder. Language packs and stages alike may import this module; it imports
nothing of gen09."""

from __future__ import annotations

import functools

BOM = b"\xef\xbb\xbf"


def encode(text: str, bom: bool = False) -> bytes:
    """``text`` as UTF-8 bytes, behind a byte-order mark when ``bom``."""
    data = text.encode("utf-8")
    return BOM + data if bom else data


@functools.lru_cache(maxsize=32)
def line_offsets(text: str) -> tuple[int, ...]:
    """Offset of the start of each ``\\n``-terminated line (line N starts at
    ``offsets[N - 1]``), plus a final entry equal to ``len(text)``."""
    offsets = [0]
    at = text.find("\n")
    while at != -1:
        offsets.append(at + 1)
        at = text.find("\n", at + 1)
    if offsets[-1] != len(text) or len(offsets) == 1:
        offsets.append(len(text))
    return tuple(offsets)


def line_count(text: str) -> int:
    """How many lines ``text`` has, split after each ``\\n`` (a last unterminated line counts)."""
    return text.count("\n") + bool(text) - text.endswith("\n")


@functools.lru_cache(maxsize=64)
def common_ends(old: str, new: str) -> tuple[int, int]:
    """How many leading and trailing lines (split after each ``\\n``) two texts share, never
    overlapping. Found by comparing the strings, not line by line, so a one-line change of a
    large file costs a few string comparisons."""
    if old == new:
        return line_count(old), 0
    cut = old.rfind("\n", 0, _shared(old, new)) + 1  # where the first differing line starts
    suffix = _shared(old, new, min(len(old), len(new)) - cut)
    start, other = len(old) - suffix, len(new) - suffix
    if not ((start == 0 or old[start - 1] == "\n") and (other == 0 or new[other - 1] == "\n")):
        start = old.find("\n", start) + 1 or len(old)  # the shared suffix from its first whole line
    return old.count("\n", 0, cut), old.count("\n", start) + (start < len(old) and old[-1] != "\n")


def _shared(a: str, b: str, suffix_within: int | None = None) -> int:
    """The length of the longest common prefix of ``a`` and ``b``, or with ``suffix_within``
    of their longest common suffix no longer than that (a bisection that compares only the
    part not yet known to be shared)."""
    lo, hi = 0, min(len(a), len(b)) if suffix_within is None else suffix_within
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if (a.startswith(b[lo:mid], lo) if suffix_within is None
                else a.endswith(b[len(b) - mid:len(b) - lo], 0, len(a) - lo)):
            lo = mid
        else:
            hi = mid - 1
    return lo
