"""Candidates change a few lines of a large module. Top-level statements are self-contained
(no string, bracket or block crosses from one to the next), so a candidate can be checked and
normalized by its changed statements alone, reusing the original's work for the rest:

- the original is parsed once and cut at the first line of each top-level statement that
  begins on a line of its own (not after ``;`` on a line where an earlier statement ends);
- a candidate's *chunk* is the run of whole top-level statements (in the original's cuts)
  that covers every changed line, with the candidate's text;
- if the chunk compiles on its own, the candidate is the original's untouched statements
  before and after it around a self-contained middle, so the whole file compiles, and its
  normal form is the original's normalized pieces around the normalized chunk.

The same holds one level down, for the body statements of a top-level class (a method
edit compiles and normalizes that method alone).

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

from gen09_core.text import common_ends, line_count, line_offsets

_MODULE_GLOBAL = re.compile(r"^global\b", re.M)


@frozen
class Layout:
    """The original cut at top-level statement starts: line starts ``cuts`` (0-based, first 0
    and last the line count), its lines, and the ``__future__`` compiler flags it sets."""

    lines: tuple[str, ...]
    offsets: tuple[int, ...]  # where each line starts in the text, then its length
    cuts: tuple[int, ...]
    future_flags: int
    future_end: int  # line after the last ``__future__`` import (0 when none)
    module_global: bool  # a ``global`` statement at module level


@frozen
class Chunk:
    """The candidate's changed statements: lines ``[start, stop)`` of the original replaced
    by ``text``."""

    start: int
    stop: int
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
    if _lone_cr(original):
        return None
    try:
        tree = _parsed(original)
    except (SyntaxError, ValueError):
        return None
    lines = split_lines(original)
    starts = set(_starts(tree.body, lines))
    flags = future_end = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            future_end = node.end_lineno
            for alias in node.names:
                flags |= getattr(__future__, alias.name).compiler_flag
    module_global = any(isinstance(node, ast.Global) for node in tree.body)
    return Layout(tuple(lines), line_offsets(original), tuple(sorted(starts | {0, len(lines)})), flags,
                  future_end, module_global)


def _lone_cr(text: str) -> bool:
    """Whether ``text`` has a CR line break not followed by LF (copied only when it has a CR)."""
    return "\r" in text and "\r" in text.replace("\r\n", "")


@functools.lru_cache(maxsize=16)
def _parsed(original: str) -> ast.Module:
    """The original's syntax tree (cached; never modified)."""
    return ast.parse(original)


def _starts(body: list[ast.stmt], lines: list[str]) -> list[int]:
    """The 0-based first lines of the statements of ``body`` that begin on a line of their own:
    after the line where the statement before them ends, and not after a line continued by a
    backslash. Only there may a piece be cut off."""
    found, end = [], 0
    for node in body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        if start >= end and not (start and lines[start - 1].rstrip("\r\n").endswith("\\")):
            found.append(start)
        end = node.end_lineno
    return found


@functools.lru_cache(maxsize=512)
def chunk(original: str, new: str) -> Chunk | None:
    """The self-contained changed chunk of ``new``, or None (then use the whole file). When only
    body statements of one class changed, whether they compile alone (``class_chunk``, which
    the gate has usually asked already) decides, and the class is not compiled again."""
    lay = layout(original)
    if lay is None or _lone_cr(new):
        return None
    head, tail = common_ends(original, new)
    first = bisect.bisect_right(lay.cuts, head) - 1
    last = bisect.bisect_left(lay.cuts, len(lay.lines) - tail)
    start, stop = lay.cuts[first], lay.cuts[last]
    text = _middle(lay, original, new, start, stop)
    # module-level rules that span statements: __future__ placement, global declarations
    if (start > 0 and "__future__" in text) or start < lay.future_end or lay.module_global \
            or _MODULE_GLOBAL.search(text):
        return None
    body = _class_body(original, new)
    if body:  # the changed statements lie in one class body, which decides
        return Chunk(start, stop, text) if body[1] else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. invalid escapes: not the gate's business
            flags = lay.future_flags if start else 0
            compile(_tree("\n" * start + text, flags), "<chunk>", "exec", flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return Chunk(start, stop, text)


def _middle(lay: Layout, original: str, new: str, start: int, stop: int) -> str:
    """The text of ``new`` that replaces the original's lines ``[start, stop)``, where the lines
    before ``start`` and from ``stop`` on are unchanged."""
    return new[lay.offsets[start]:len(new) - (len(original) - lay.offsets[stop])]


_MODULE_DECLARATION = re.compile(r"^(?:global|nonlocal)\b", re.M)
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")


def rest(original: str, new: str) -> tuple[str, int] | None:
    """``new`` with the original's untouched top-level statements before the changed ones
    turned into blank lines, and the ``__future__`` flags they set: CPython compiles that to
    the outcome of ``new`` (error and line), as the statements it no longer parses are
    whole, unchanged and compile, and nothing after them can reach back: not a ``global`` or
    ``nonlocal`` declaration, a ``__future__`` import, an indented line (it could continue their last
    block) or an ``else``/``elif``/``except``/``finally`` clause. None when that does not
    hold. The caller checks that the original compiles."""
    lay = layout(original)
    if lay is None or lay.module_global or _lone_cr(new):
        return None
    start = lay.cuts[bisect.bisect_right(lay.cuts, common_ends(original, new)[0]) - 1]
    text = new[lay.offsets[start]:]
    if start == 0 or start < lay.future_end or "__future__" in text or _MODULE_DECLARATION.search(text):
        return None
    for line in text.split("\n"):
        if line.lstrip(" \t\f")[:1] not in ("", "#"):
            if line[0] in " \t\f" or _CLAUSE.match(line):
                return None
            break
    return "\n" * start + text, lay.future_flags


@functools.lru_cache(maxsize=16)
def class_bodies(original: str) -> dict[int, tuple[tuple[int, ...], str, bool]]:
    """Per top-level class (by the 0-based line of its statement's start): the starts of its
    body statements, the body's indentation, and whether the body declares ``global`` or
    ``nonlocal`` at class level (those rules span statements)."""
    tree = _parsed(original)
    lines = split_lines(original)
    found = {}
    for node in tree.body:
        starts = tuple(_starts(node.body, lines)) if isinstance(node, ast.ClassDef) else ()
        if starts:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            first = lines[starts[0]]
            indent = first[:len(first) - len(first.lstrip(" \t"))]
            spans = any(isinstance(n, ast.Global | ast.Nonlocal) for n in node.body)
            found[start] = (starts, indent, spans)
    return found


@functools.lru_cache(maxsize=512)
def _class_body(original: str, new: str) -> tuple[Chunk, bool] | None:
    """When ``new`` changes only whole body statements of one top-level class of the original:
    those statements, and whether they compile as a class body at their indentation."""
    lay = layout(original)
    if lay is None or lay.module_global or _lone_cr(new):
        return None
    head, tail = common_ends(original, new)
    first = bisect.bisect_right(lay.cuts, head) - 1
    last = bisect.bisect_left(lay.cuts, len(lay.lines) - tail)
    entry = class_bodies(original).get(lay.cuts[first])
    if last - first != 1 or entry is None or entry[2]:
        return None
    starts, indent, _ = entry
    cuts = (*starts, lay.cuts[last])
    if head < cuts[0] or not indent:
        return None
    b_first = bisect.bisect_right(cuts, head) - 1
    b_last = max(bisect.bisect_left(cuts, len(lay.lines) - tail), b_first + 1)
    start, stop = cuts[b_first], cuts[b_last]
    text = _middle(lay, original, new, start, stop)
    if _SPANNING.search(text) or "__future__" in text:
        return None
    found = Chunk(start, stop, text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = _tree(_body_source(start, text, indent), lay.future_flags)
            body = tree.body[0].body if len(tree.body) == 1 and isinstance(tree.body[0], ast.ClassDef) else []
            end = body[-1] if body else None
            if not (isinstance(end, ast.Assign) and isinstance(end.targets[0], ast.Name)
                    and end.targets[0].id == "_gen09_end_" and end.col_offset == len(indent)):
                return found, False
            compile(tree, "<chunk>", "exec", lay.future_flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return found, False
    return found, True


def _body_source(start: int, text: str, indent: str) -> str:
    """Class-body statements ``text`` (from line ``start``) as a module of one class whose
    last statement is a sentinel at their indentation, with the lines where they stand."""
    return "\n" * (start - 1) + f"class _gen09_body_:\n{text}{indent}_gen09_end_ = 0\n"


def class_chunk(original: str, new: str) -> Chunk | None:
    """The changed body statements when ``new`` changes only whole body statements of one
    top-level class of the original, and those compile as a class body at the same
    indentation: then, like a top-level chunk, they decide for the whole file. None when that
    cannot be shown (the caller falls back to the top-level chunk, then the whole file)."""
    body = _class_body(original, new)
    return body[0] if body and body[1] else None


_SPANNING = re.compile(r"^[ \t]*(?:global|nonlocal)\b", re.M)


@functools.lru_cache(maxsize=16)
def normalized_pieces(original: str, strip) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
    """The original cut at its top-level and class-body cuts, and ``strip`` applied to each
    piece between consecutive cuts."""
    lay = layout(original)
    if lay is None:
        return None
    bodies = class_bodies(original).values()
    cuts = tuple(sorted({*lay.cuts, *(cut for starts, _, _ in bodies for cut in starts)}))
    return cuts, tuple(strip(original[lay.offsets[a]:lay.offsets[b]])
                       for a, b in zip(cuts, cuts[1:], strict=False))


def normalize(original: str, new: str, strip) -> str:
    """``strip(new)``, computed from the changed class-body statements or top-level chunk
    when the layout allows."""
    piece = class_chunk(original, new) or chunk(original, new)
    found = normalized_pieces(original, strip)
    if piece is None or found is None:
        return strip(new)
    cuts, pieces = found
    first, last = bisect.bisect_left(cuts, piece.start), bisect.bisect_left(cuts, piece.stop)
    return "".join(pieces[:first]) + strip(piece.text) + "".join(pieces[last:])


def same_names(original: str, new: str) -> bool:
    """Whether ``new`` differs from ``original`` only in operators (arithmetic, bitwise,
    comparison, boolean; unary ones also added or dropped) and in number, boolean or ``None``
    constants, within the changed class-body or top-level statements: their syntax trees are
    identical but for those. Then every name is bound and used in the same scopes, contexts
    and order, and every string (annotations, ``__all__`` entries) is the same, so name rules
    such as pyflakes' undefined-name and unused-import report the same findings for both.
    Kept apart: a test of an ``if``, ``while`` or conditional expression that is a constant
    in either (ruff takes ``if 0:``/``if False:`` for a type-checking block), f-strings, and
    statements naming ``__all__`` (its operators decide what it exports) or
    ``TYPE_CHECKING`` (a ``not`` dropped there would make a block type-checking only)."""
    body = class_chunk(original, new)
    piece = body or chunk(original, new)
    if piece is None:
        return False
    lay = layout(original)
    old_text = original[lay.offsets[piece.start]:lay.offsets[piece.stop]]
    if any(word in text for word in ("__all__", "TYPE_CHECKING") for text in (old_text, piece.text)):
        return False
    cut = lay.cuts[bisect.bisect_right(lay.cuts, piece.start) - 1]
    if body:  # the statements of one class body, as the gate compiled them (sentinel dropped)
        new_nodes = _tree(_body_source(piece.start, piece.text, class_bodies(original)[cut][1]),
                          lay.future_flags).body[0].body[:-1]
    else:
        new_nodes = _tree("\n" * piece.start + piece.text, lay.future_flags if piece.start else 0).body
    firsts, nodes = _statements(original, cut if body else None)
    old = nodes[bisect.bisect_left(firsts, piece.start):bisect.bisect_left(firsts, piece.stop)]
    head, tail = common_ends(original, new)
    shift = line_count(piece.text) - (piece.stop - piece.start)
    return _same(old, new_nodes, (head, len(lay.lines) - tail + 1, shift))


@functools.lru_cache(maxsize=256)
def _statements(original: str, cut: int | None) -> tuple[list[int], list[ast.stmt]]:
    """The original's top-level statements (``cut`` None) or those of the class at line
    ``cut``, with their 0-based first lines (decorators included)."""
    nodes = _parsed(original).body
    if cut is not None:
        nodes = next(n for n in nodes if _first_line(n) == cut).body
    return [_first_line(n) for n in nodes], nodes


def _first_line(node: ast.stmt) -> int:
    return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1


@functools.lru_cache(maxsize=64)
def _tree(source: str, flags: int) -> ast.Module:
    """The syntax tree of ``source`` (cached, so the gate's tree of a chunk serves
    ``same_names`` too; never modified)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(source, "<chunk>", "exec", flags | ast.PyCF_ONLY_AST, dont_inherit=True)


_FREE = (type(None), bool, int, float, complex)  # constants whose value no name rule reads


def _same(a, b, lines: tuple[int, int, int]) -> bool:
    """Whether trees ``a`` and ``b`` are equal but for operators and free constants.
    ``lines``: the last line of the texts' shared head, the first of the old text's shared
    tail, and how many lines the new text has more. A node lying within the shared head or
    tail at the same place in both spans the same text in the same context (its parent's
    type and field), so it is the same subtree and is not walked."""
    if isinstance(a, ast.UnaryOp) is not isinstance(b, ast.UnaryOp):  # one added or dropped
        return _same(a.operand, b, lines) if isinstance(a, ast.UnaryOp) else _same(a, b.operand, lines)
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y, lines) for x, y in zip(a, b, strict=True))
    if not isinstance(a, ast.AST):
        return a == b
    end = getattr(a, "end_lineno", None)
    if end is not None:  # decorators stand before a definition's own first line
        first = min([a.lineno] + [d.lineno for d in getattr(a, "decorator_list", ())])
        shift = 0 if end <= lines[0] else lines[2] if first >= lines[1] else None
        if shift is not None and (first + shift, a.col_offset, end + shift, a.end_col_offset) == (
                min([b.lineno] + [d.lineno for d in getattr(b, "decorator_list", ())]), b.col_offset,
                b.end_lineno, b.end_col_offset):
            return True
    if isinstance(a, ast.Constant):
        return (type(a.value) in _FREE and type(b.value) in _FREE) or (
            type(a.value) is type(b.value) and a.value == b.value and a.kind == b.kind)
    if isinstance(a, ast.JoinedStr):
        return ast.dump(a) == ast.dump(b)
    if isinstance(a, ast.If | ast.While | ast.IfExp) and ast.Constant in (type(a.test), type(b.test)) \
            and ast.dump(a.test) != ast.dump(b.test):
        return False
    return all(name in ("op", "ops") or _same(getattr(a, name), getattr(b, name), lines)
               for name in a._fields)
