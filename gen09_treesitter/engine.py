"""Parsing one language with tree-sitter: syntax findings, comment removal, entities.

A ``Grammar`` keeps a few recent trees. A new text is parsed incrementally from the cached
tree of the same file that differs from it least (``tree.edit`` over the changed byte range,
then ``parser.parse(new, old_tree)``): candidates for one target differ from each other and
from the original in a few lines. When the incremental tree's ERROR/MISSING findings differ
from those of the tree it started from (the candidate seems to add a problem), a full parse
decides, so a rejection never depends on which tree the parse started from.
"""

from __future__ import annotations

import functools
from collections import Counter, OrderedDict

from gen09_core.models import Entity, Finding, Span
from gen09_treesitter.languages import text as node_text

CACHE_SIZE = 8
TYPE_LIKE = {"class", "struct", "interface", "trait", "enum", ""}
_CHUNK = 1 << 16


class Parsed:
    """A tree with the file it came from; its findings are computed on first use."""

    def __init__(self, path: str | None, tree):
        """Keep ``tree`` of file ``path`` (None when unknown)."""
        self.path = path
        self.tree = tree

    @functools.cached_property
    def findings(self) -> list[Finding]:
        """The ERROR and MISSING nodes of the tree."""
        return findings(self.tree)

    def same_problems(self, other: Parsed) -> bool:
        """True when both trees have the same findings by (code, message)."""
        def key(parsed):
            return Counter((f.code, f.message) for f in parsed.findings)

        return key(self) == key(other)


class Grammar:
    """The parser, queries and recent trees of one ``LanguageSpec`` (loaded on first use)."""

    def __init__(self, spec, incremental: bool = True):
        """Describe ``spec``; nothing is imported or parsed until the first call."""
        self.spec = spec
        self.incremental = incremental
        self._parser = None
        self._queries = {}
        self._trees: OrderedDict[bytes, Parsed] = OrderedDict()

    def _load(self):
        from tree_sitter import Parser

        self._parser = Parser(self.spec.load())

    def parse(self, data: bytes, path: str | None = None):
        """The tree of ``data`` (UTF-8 bytes): cached, incremental, or a full parse."""
        return self.parsed(data, path).tree

    def parsed(self, data: bytes, path: str | None = None) -> Parsed:
        """``data`` parsed, with its findings at hand (see the module docstring)."""
        if self._parser is None:
            self._load()
        entry = self._trees.get(data)
        if entry is not None:
            self._trees.move_to_end(data)
            return entry
        if self.incremental and self._trees:
            entry = self._reparse(data, path)
        if entry is None:
            entry = Parsed(path, self._parser.parse(data))
        self._trees[data] = entry
        if len(self._trees) > CACHE_SIZE:
            self._trees.popitem(last=False)
        return entry

    def full_parse(self, data: bytes):
        """A fresh parse that neither reads nor fills the cache (for measurements)."""
        if self._parser is None:
            self._load()
        return self._parser.parse(data)

    def _reparse(self, data: bytes, path: str | None) -> Parsed | None:
        best = None
        for old, base in reversed(self._trees.items()):
            if path is not None and base.path not in (path, None):
                continue
            start, old_end, new_end = changed_range(old, data)
            cost = max(old_end, new_end) - start
            if best is None or cost < best[0]:
                best = (cost, old, base, start, old_end, new_end)
        if best is None:
            return None
        _, old, base, start, old_end, new_end = best
        tree = base.tree.copy()
        tree.edit(start, old_end, new_end, point(old, start), point(old, old_end), point(data, new_end))
        entry = Parsed(path, self._parser.parse(data, tree))
        if not entry.same_problems(base):
            return None  # it looks like the edit adds a problem: a full parse decides
        return entry

    def query(self, types) -> object:
        """A compiled query capturing every node of the given types as ``@n``."""
        types = tuple(sorted(types))
        if types not in self._queries:
            from tree_sitter import Query

            if self._parser is None:
                self._load()
            pattern = "[" + " ".join(f"({t})" for t in types) + "] @n"
            self._queries[types] = Query(self._parser.language, pattern)
        return self._queries[types]

    def nodes(self, tree, types) -> list:
        """Every node of ``tree`` whose type is in ``types``, in document order."""
        if not types:
            return []
        from tree_sitter import QueryCursor

        found = QueryCursor(self.query(types)).captures(tree.root_node).get("n", [])
        return sorted(found, key=lambda n: (n.start_byte, -n.end_byte))


def changed_range(old: bytes, new: bytes) -> tuple[int, int, int]:
    """``(start, old_end, new_end)``: the bytes outside ``old[start:old_end]`` and
    ``new[start:new_end]`` are the same common prefix and suffix."""
    limit = min(len(old), len(new))
    start = _common(old, new, limit, lambda i, j: (old[i:j], new[i:j]))
    tail = _common(old, new, limit - start,
                   lambda i, j: (old[len(old) - j:len(old) - i], new[len(new) - j:len(new) - i]))
    return start, len(old) - tail, len(new) - tail


def _common(old, new, limit, window) -> int:
    """Length of the common run, comparing whole chunks first, then bisecting one chunk."""
    done = 0
    while done < limit:
        step = min(_CHUNK, limit - done)
        a, b = window(done, done + step)
        if a == b:
            done += step
            continue
        lo, hi = 0, step  # a[:lo] == b[:lo], a[:hi] != b[:hi] for the reversed view too
        while hi - lo > 1:
            mid = (lo + hi) // 2
            x, y = window(done, done + mid)
            lo, hi = (mid, hi) if x == y else (lo, mid)
        return done + lo
    return limit


def point(data: bytes, offset: int) -> tuple[int, int]:
    """The tree-sitter ``(row, column)`` of byte ``offset``."""
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


def findings(tree) -> list[Finding]:
    """ERROR and MISSING nodes of ``tree``. Messages name the node and its parent but no
    line, so the gate can compare them between the original and a candidate."""
    out = []
    stack = [tree.root_node] if tree.root_node.has_error else []
    while stack:
        node = stack.pop()
        parent = node.parent.type if node.parent is not None else None
        parent = "file" if parent == "ERROR" else parent
        if node.is_error and parent is None:  # nothing parsed: the parser gave up at the end
            row, column = node.end_point
            last = row + (column > 0 or not row)  # the last line that has text
            out.append(Finding("ERROR", "syntax error in file (unclosed block?)", last))
            stack.extend(c for c in reversed(node.children) if c.has_error or c.is_missing)
        elif node.is_error:
            out.append(Finding("ERROR", f"syntax error in {parent}", node.start_point[0] + 1))
            stack.extend(c for c in reversed(node.children) if c.is_missing)
        elif node.is_missing:
            out.append(Finding("MISSING", f"missing {node.type!r} in {parent}", node.start_point[0] + 1))
        else:
            stack.extend(c for c in reversed(node.children) if c.has_error)
    return out


def strip_comments(grammar: Grammar, text: str) -> str:
    """``text`` with every comment node cut out, together with the blanks that set it apart
    (those on its left, else those on its right), so ``a + b /* c */;`` becomes ``a + b;``
    and ``f(/* c */ a)`` becomes ``f(a)``. One space is put back where two word characters
    would otherwise join: ``a/*x*/b`` stays two tokens."""
    data = text.encode("utf-8")
    tree = grammar.parse(data)
    out, at = bytearray(), 0
    for node in grammar.nodes(tree, grammar.spec.comments):
        if node.start_byte < at:  # a comment inside a comment
            continue
        before = data[at:node.start_byte]
        kept = before.rstrip(b" \t")
        at = node.end_byte
        if len(kept) == len(before):
            while data[at:at + 1] in (b" ", b"\t"):
                at += 1
        out += kept
        if _word(out[-1:]) and _word(data[at:at + 1]):
            out += b" "
    out += data[at:]
    return out.decode("utf-8")


def _word(char: bytes) -> bool:
    """True for a letter, digit, ``_``, ``$`` or a byte of a non-ASCII character."""
    return bool(char) and (char.isalnum() or char in b"_$" or char[0] >= 0x80)


def definitions(grammar: Grammar, tree) -> list[tuple[object, str, str]]:
    """``(node, qualified name, kind)`` of every definition in ``tree`` that is an entity,
    in document order (``Point.area``, ``Server.Handle``)."""
    spec = grammar.spec
    out = []
    scopes: list[tuple[int, str, str]] = []  # (end_byte, qualified name, kind)
    for node in grammar.nodes(tree, spec.definitions):
        while scopes and scopes[-1][0] <= node.start_byte:
            scopes.pop()
        reader = spec.names.get(node.type)
        if reader is not None:
            name = reader(node)
        else:
            field = node.child_by_field_name("name")
            name = node_text(field) if field else None
        if not name:
            continue
        kind = spec.definitions[node.type]
        owner = scopes[-1] if scopes else None
        if kind == "function" and (owner and owner[2] in TYPE_LIKE or "." in name):
            kind = "method"
        qualified = f"{owner[1]}.{name}" if owner else name
        scopes.append((node.end_byte, qualified, kind))
        if kind:
            out.append((node, qualified, kind))
    return out


def entities(grammar: Grammar, text: str, path: str | None = None) -> list[Entity]:
    """Definitions in ``text``, named inside the file (``Point.area``, ``Server.Handle``)."""
    tree = grammar.parse(text.encode("utf-8"), path)
    out = []
    for node, name, kind in definitions(grammar, tree):
        start = node.start_point[0] + 1
        end = node.end_point[0] + 1 - (node.end_point[1] == 0)  # ends at a line start
        out.append(Entity(name, kind, Span(start, max(start, end))))
    return out
