"""Literal mutators: a typo in a string, a negated boolean, ``null`` for a returned value."""

from __future__ import annotations

from gen09_treesitter.mutators.base import TreeMutator, fixed
from gen09_treesitter.mutators.control import FUNCTIONS
from gen09_treesitter.mutators.syntax import EVERY, ancestors, named, operator, text

LOADERS = frozenset({"require", "require_relative", "import", "load", "autoload"})
PRIMITIVE = frozenset({"integral_type", "floating_point_type", "boolean_type", "void_type"})
NEGATIONS = frozenset({"!", "not"})


def _loads(node) -> bool:
    """True for the string argument of ``require("x")`` / ``import("x")`` (a module name)."""
    call = next((a for a in ancestors(node) if a.type in ("call_expression", "call")), None)
    name = call.child_by_field_name("function") or call.child_by_field_name("method") if call else None
    return name is not None and text(name) in LOADERS


def _typos(scope):
    for node in scope.nodes(scope.dialect.strings):
        data = scope.text(node)
        letters = [i for i, c in enumerate(data) if chr(c).isascii() and chr(c).isalpha()]
        if not letters or b"%" in data or b"{" in data or _loads(node):
            continue

        def site(rng, node=node, data=data, letters=letters):
            i = rng.choice(letters)
            how = rng.choice(("swap", "drop", "double"))
            if how == "swap" and i + 1 in letters and data[i] != data[i + 1]:
                new = data[:i] + data[i + 1:i + 2] + data[i:i + 1] + data[i + 2:]
            elif how == "drop" and len(data) > 1:
                new = data[:i] + data[i + 1:]
            else:
                new = data[:i + 1] + data[i:]
            return [(node.start_byte, node.end_byte, new)]

        yield site


def _negations(scope):
    d = scope.dialect
    for node in scope.nodes(d.booleans | d.unaries):
        if any(a.type.endswith("pattern") for a in ancestors(node, scope.node)):
            continue  # match arms: a flipped pattern leaves the match non-exhaustive
        if node.type in d.booleans:
            yield fixed((node.start_byte, node.end_byte, b"false" if node.text == b"true" else b"true"))
        elif operator(node) in NEGATIONS and named(node):
            yield fixed((node.start_byte, node.end_byte, scope.text(named(node)[-1])))


def _return_null(scope):
    kind = scope.node.child_by_field_name("type")
    if kind is None or kind.type in PRIMITIVE:
        return
    for node in scope.nodes({"return_statement"}):
        value = named(node)
        owner = next((a for a in ancestors(node) if a.type in FUNCTIONS), None)
        if value and value[0].type != "null_literal" and owner == scope.node:
            yield fixed((value[0].start_byte, value[0].end_byte, b"null"))


STRING_TYPO = TreeMutator(
    name="str_typo",
    description="Put a typo in a string literal: swap, drop or double one letter.",
    languages=EVERY, conditions=("string",), min_complexity=1, likelihood=0.25, finder=_typos,
)

NEGATE_BOOLEAN = TreeMutator(
    name="bool_negate",
    description="Negate a boolean: true to false (and back), or drop a ! negation.",
    languages=EVERY, conditions=("boolean",), min_complexity=1, likelihood=0.25, finder=_negations,
)

RETURN_NULL = TreeMutator(
    name="return_null",
    description="Return null instead of the computed object.",
    languages=("java",), conditions=("return_value",), min_complexity=1, likelihood=0.25, finder=_return_null,
)
