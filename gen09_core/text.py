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


def common_ends(old: list[str], new: list[str]) -> tuple[int, int]:
    """How many leading and trailing lines two versions share (never overlapping)."""
    head, limit = 0, min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return head, tail
