"""Ruby's nil-introduction mutators: each one lets a nil through where the code guarded
against it (the family SWE-smith's Ruby modifiers cover)."""

from __future__ import annotations

from gen09_treesitter.mutators.base import TreeMutator, fixed
from gen09_treesitter.mutators.remove import deletions
from gen09_treesitter.mutators.syntax import operator, operator_node, strip_parens, text

RUBY = ("ruby",)
CONDITIONS = frozenset({"if", "unless", "while", "until", "conditional", "if_modifier", "unless_modifier",
                        "while_modifier", "until_modifier", "elsif"})
GUARDED = frozenset({"return", "next", "break"})
SIMPLE = frozenset({"identifier", "instance_variable", "call"})


def _safe_navigation(scope):
    for call in scope.nodes({"call"}):
        token = call.child_by_field_name("operator")
        if token is not None and token.type == "&.":
            yield fixed((token.start_byte, token.end_byte, b"."))


def _or_default(scope):
    for node in scope.nodes({"binary"}):
        left = node.child_by_field_name("left")
        if operator(node) in ("||", "or") and left is not None and node.parent.type not in CONDITIONS:
            yield fixed((node.start_byte, node.end_byte, scope.text(left)))


def _or_assign(scope):
    for node in scope.nodes({"operator_assignment"}):
        if operator(node) == "||=":
            token = operator_node(node)
            yield fixed((token.start_byte, token.end_byte, b"="))


def _bang(scope):
    for call in scope.nodes({"call"}):
        method = call.child_by_field_name("method")
        if method is not None and method.text.endswith(b"!") and len(method.text) > 1:
            yield fixed((method.start_byte, method.end_byte, method.text[:-1]))


def is_nil_guard(node) -> bool:
    """``return if x.nil?``, ``return unless x``, ``next if !x``, ``raise ... if x == nil``."""
    body, condition = node.child_by_field_name("body"), strip_parens(node.child_by_field_name("condition"))
    if body is None or condition is None:
        return False
    leaves = body.type in GUARDED or body.type == "call" and text(body).startswith(("raise", "fail"))
    if not leaves:
        return False
    if "nil" in text(condition):
        return True
    if node.type == "unless_modifier":
        return condition.type in SIMPLE
    return condition.type == "unary" and operator(condition) in ("!", "not")


def _nil_guards(scope):
    return deletions(scope, {"if_modifier", "unless_modifier"}, is_nil_guard)


REMOVE_SAFE_NAVIGATION = TreeMutator(
    name="remove_safe_nav",
    description="Call through nil: turn a safe-navigation call (&.) into a plain one (.).",
    languages=RUBY, conditions=("safe_nav",), min_complexity=1, likelihood=0.4, finder=_safe_navigation,
)

REMOVE_OR_DEFAULT = TreeMutator(
    name="remove_or_default",
    description="Drop a fallback default: `x || default` becomes `x` (outside conditions).",
    languages=RUBY, conditions=("or_default",), min_complexity=2, likelihood=0.4, finder=_or_default,
)

REMOVE_OR_ASSIGN = TreeMutator(
    name="remove_or_assign",
    description="Turn a memoizing `||=` into a plain `=`.",
    languages=RUBY, conditions=("or_assign",), min_complexity=1, likelihood=0.4, finder=_or_assign,
)

STRIP_BANG = TreeMutator(
    name="strip_bang",
    description="Call the non-bang variant of a bang method (save! to save, sort! to sort).",
    languages=RUBY, conditions=("bang_call",), min_complexity=1, likelihood=0.4, finder=_bang,
)

REMOVE_NIL_GUARD = TreeMutator(
    name="remove_nil_guard",
    description="Remove a guard clause against nil (`return if x.nil?`, `return unless x`).",
    languages=RUBY, conditions=("nil_guard",), min_complexity=2, likelihood=0.4, finder=_nil_guards,
)
