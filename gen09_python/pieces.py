"""Candidates change a few lines of a large module. Top-level statements are self-contained
(no string, bracket or block crosses from one to the next), so a candidate can be checked and
normalized by its changed statements alone, reusing the original's work for the rest:

- the original is parsed once and cut at the first line of each top-level statement;
- a candidate's *chunk* is the run of whole top-level statements (in the original's cuts)
  that covers every changed line, with the candidate's text;
- if the chunk compiles on its own, the candidate is the original's untouched statements
  before and after it around a self-contained middle, so the whole file compiles, and its
  normal form is the original's normalized pieces around the normalized chunk.

Whenever that reasoning does not hold (the original does not parse, a lone CR, a
``__future__`` import in a later chunk, a chunk that does not compile alone) the caller falls
back to the whole file.
"""

from __future__ import annotations
import __future__

import ast
import bisect
import functools
import re
import warnings

from attrs import frozen

from gen09_core.text import common_ends

_MODULE_GLOBAL = re.compile(r"^global\b", re.M)


@frozen
class Layout:
    """The original cut at top-level statement starts: line starts ``cuts`` (0-based, first 0
    and last the line count), its lines, and the ``__future__`` compiler flags it sets."""

    lines: tuple[str, ...]
    cuts: tuple[int, ...]
    future_flags: int
    future_end: int  # line after the last ``__future__`` import (0 when none)
    module_global: bool  # a ``global`` statement at module level


@frozen
class Chunk:
    """The candidate's changed statements: lines ``[start, stop)`` of the original replaced
    by ``text``; ``first``/``last`` index the original's cuts at ``start`` and ``stop``."""

    start: int
    stop: int
    first: int
    last: int
    text: str


def split_lines(text: str) -> list[str]:
    """Lines ending in ``\\n`` (the last may not), as Python's tokenizer counts them."""
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


@functools.lru_cache(maxsize=16)
def layout(original: str) -> Layout | None:
    """The original's layout, or None when it does not parse or has lone CR line breaks."""
    if "\r" in original.replace("\r\n", ""):
        return None
    try:
        tree = ast.parse(original)
    except (SyntaxError, ValueError):
        return None
    lines = split_lines(original)
    starts = {min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]) - 1 for n in tree.body}
    flags = future_end = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            future_end = node.end_lineno
            for alias in node.names:
                flags |= getattr(__future__, alias.name).compiler_flag
    module_global = any(isinstance(node, ast.Global) for node in tree.body)
    return Layout(tuple(lines), tuple(sorted(starts | {0, len(lines)})), flags, future_end, module_global)


@functools.lru_cache(maxsize=512)
def chunk(original: str, new: str) -> Chunk | None:
    """The self-contained changed chunk of ``new``, or None (then use the whole file)."""
    lay = layout(original)
    if lay is None or "\r" in new.replace("\r\n", ""):
        return None
    old, now = lay.lines, split_lines(new)
    head, tail = common_ends(old, now)
    first = bisect.bisect_right(lay.cuts, head) - 1
    last = bisect.bisect_left(lay.cuts, len(old) - tail)
    start, stop = lay.cuts[first], lay.cuts[last]
    text = "".join(now[start:len(now) - (len(old) - stop)])
    # module-level rules that span statements: __future__ placement, global declarations
    if (start > 0 and "__future__" in text) or start < lay.future_end or lay.module_global \
            or _MODULE_GLOBAL.search(text):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escapes: not the gate's business
            compile("\n" * start + text, "<chunk>", "exec", lay.future_flags if start else 0,
                    dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return Chunk(start, stop, first, last, text)


@functools.lru_cache(maxsize=16)
def class_bodies(original: str) -> dict[int, tuple[tuple[int, ...], str, bool]]:
    """Per top-level class (by the 0-based line of its statement's start): the starts of its
    body statements, the body's indentation, and whether the body declares ``global`` or
    ``nonlocal`` at class level (those rules span statements)."""
    tree = ast.parse(original)
    lines = split_lines(original)
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.body:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            starts = tuple(min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]) - 1
                           for n in node.body)
            first = lines[starts[0]]
            indent = first[:len(first) - len(first.lstrip(" \t"))]
            spans = any(isinstance(n, ast.Global | ast.Nonlocal) for n in node.body)
            found[start] = (starts, indent, spans)
    return found


@functools.lru_cache(maxsize=512)
def class_chunk_compiles(original: str, new: str) -> bool:
    """True when ``new`` changes only whole body statements of one top-level class of the
    original, and those compile as a class body at the same indentation: then, like a
    top-level chunk, they decide for the whole file. False when that cannot be shown (the
    caller falls back to the top-level chunk, then the whole file)."""
    lay = layout(original)
    if lay is None or lay.module_global or "\r" in new.replace("\r\n", ""):
        return False
    old, now = lay.lines, split_lines(new)
    head, tail = common_ends(old, now)
    first = bisect.bisect_right(lay.cuts, head) - 1
    last = bisect.bisect_left(lay.cuts, len(old) - tail)
    entry = class_bodies(original).get(lay.cuts[first])
    if last - first != 1 or entry is None or entry[2]:
        return False
    starts, indent, _ = entry
    cuts = (*starts, lay.cuts[last])
    if head < cuts[0] or not indent:
        return False
    b_first = bisect.bisect_right(cuts, head) - 1
    b_last = max(bisect.bisect_left(cuts, len(old) - tail), b_first + 1)
    start, stop = cuts[b_first], cuts[b_last]
    text = "".join(now[start:len(now) - (len(old) - stop)])
    if _SPANNING.search(text) or "__future__" in text:
        return False
    source = f"class _gen09_body_:\n{text}{indent}_gen09_end_ = 0\n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = compile(source, "<chunk>", "exec", lay.future_flags | ast.PyCF_ONLY_AST, dont_inherit=True)
            body = tree.body[0].body if len(tree.body) == 1 and isinstance(tree.body[0], ast.ClassDef) else []
            end = body[-1] if body else None
            if not (isinstance(end, ast.Assign) and isinstance(end.targets[0], ast.Name)
                    and end.targets[0].id == "_gen09_end_" and end.col_offset == len(indent)):
                return False
            compile(tree, "<chunk>", "exec", lay.future_flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


_SPANNING = re.compile(r"^[ \t]*(?:global|nonlocal)\b", re.M)


@functools.lru_cache(maxsize=16)
def normalized_pieces(original: str, strip) -> tuple[str, ...] | None:
    """``strip`` applied to each piece of the original between consecutive cuts."""
    lay = layout(original)
    if lay is None:
        return None
    return tuple(strip("".join(lay.lines[a:b])) for a, b in zip(lay.cuts, lay.cuts[1:], strict=False))


def normalize(original: str, new: str, strip) -> str:
    """``strip(new)``, computed from the changed chunk when the layout allows."""
    piece = chunk(original, new)
    pieces = normalized_pieces(original, strip)
    if piece is None or pieces is None:
        return strip(new)
    return "".join(pieces[:piece.first]) + strip(piece.text) + "".join(pieces[piece.last:])
