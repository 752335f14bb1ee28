"""The mutator protocol for tree-sitter languages and the site machinery behind it.

A ``TreeMutator`` finds *sites* inside one entity's node (an ``if`` with a plain ``else``,
a binary operation, ...). Each site is a function of the seeded ``random.Random`` that
returns byte edits ``(start, end, replacement)`` of the file. Like the Python mutators, it
picks each site with probability ``likelihood`` (at least one), asks the chosen ones for
their edits in document order, drops an edit that overlaps one already taken, and applies
the rest. Every edit lies inside the entity's node, so the bytes outside it never change.

The core calls only ``features``, ``eligible`` and ``mutate`` (the protocol documented in
``gen09_python.mutators``).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterable, Sequence

from attrs import evolve, field, frozen

from gen09_core.models import Entity, Features, Modifier
from gen09_treesitter import conventions, engine
from gen09_treesitter.languages import FUNCTION_FIELD
from gen09_treesitter.mutators.syntax import DIALECTS, Scope

Edit = tuple[int, int, bytes]
Site = Callable[[random.Random], "Sequence[Edit] | None"]


@frozen(kw_only=True)
class TreeMutator(Modifier):
    """One procedural modifier for the tree-sitter languages in ``languages``; ``finder``
    lists the sites of a ``Scope``. ``bind`` gives the copy that serves one language."""

    languages: tuple[str, ...]
    finder: Callable[[Scope], Iterable[Site]] = field(eq=False, repr=False)
    language: str = ""
    grammar: object = field(default=None, eq=False, repr=False)

    def bind(self, language: str, grammar) -> TreeMutator:
        """This mutator serving ``language`` through ``grammar`` (an ``engine.Grammar``)."""
        return evolve(self, language=language, grammar=grammar)

    def features(self, path: str, text: str, entity: Entity) -> Features | None:
        """The entity's features; None when it cannot be found, has no body, holds a
        syntax error (its tree is a guess), or is test or vendored code by its ecosystem's
        conventions (``gen09_treesitter.conventions``)."""
        return _features(self.language, self.grammar, path, text, entity.name, entity.span.start)

    def mutate(self, path: str, text: str, entity: Entity, rng: random.Random) -> str | None:
        """The whole file with the entity mutated, or None when there is nothing to change."""
        scope = locate(self.language, self.grammar, text, entity.name, entity.span.start)
        if scope is None:
            return None
        sites = list(self.finder(scope))
        if not sites:
            return None
        chosen = [i for i in range(len(sites)) if rng.random() < self.likelihood]
        if not chosen:
            chosen = [rng.randrange(len(sites))]
        lo, hi = scope.node.start_byte, scope.node.end_byte
        taken: list[Edit] = []
        for index in chosen:
            edits = sites[index](rng) or ()
            if all(lo <= s <= e <= hi for s, e, _ in edits) and not any(
                    _overlap(a, b) for a in edits for b in taken):
                taken.extend(edits)
        new = apply_edits(scope.data, taken)
        return None if new == scope.data else new.decode("utf-8")


def fixed(*edits: Edit) -> Site:
    """A site whose edits do not depend on the random generator."""
    return lambda rng: list(edits)


def _overlap(a: Edit, b: Edit) -> bool:
    return a[0] < b[1] and b[0] < a[1] or a[0] == b[0]


def apply_edits(data: bytes, edits: Iterable[Edit]) -> bytes:
    """``data`` with each non-overlapping ``(start, end, replacement)`` applied."""
    out, at = [], 0
    for start, end, replacement in sorted(edits, key=lambda e: (e[0], e[1])):
        out += [data[at:start], replacement]
        at = end
    out.append(data[at:])
    return b"".join(out)


@functools.lru_cache(maxsize=32)
def _definitions(grammar, text: str) -> tuple[bytes, dict]:
    """The file's bytes and its definition nodes by ``(qualified name, first line)``."""
    data = text.encode("utf-8")
    found: dict = {}
    for node, name, _kind in engine.definitions(grammar, grammar.full_parse(data)):
        found.setdefault((name, node.start_point[0] + 1), node)
    return data, found


def locate(language: str, grammar, text: str, name: str, start: int) -> Scope | None:
    """The ``Scope`` of the entity ``name`` starting at line ``start``, or None."""
    dialect = DIALECTS.get(language)
    if dialect is None or grammar is None:
        return None
    data, found = _definitions(grammar, text)
    node = found.get((name, start))
    return None if node is None else Scope(language, dialect, data, node)


@functools.lru_cache(maxsize=4096)
def _features(language, grammar, path, text, name, start) -> Features | None:
    from gen09_treesitter.mutators.features import entity_features

    if conventions.excluded(language, path, text):
        return None
    scope = locate(language, grammar, text, name, start)
    if scope is None or scope.node.has_error or not _has_body(scope.node) \
            or conventions.in_test_code(language, scope.node):
        return None
    return entity_features(scope)


def _has_body(node) -> bool:
    if node.type in FUNCTION_FIELD:  # ``f = function …``: the function's body
        node = node.child_by_field_name(FUNCTION_FIELD[node.type])
    return node is not None and node.child_by_field_name("body") is not None
