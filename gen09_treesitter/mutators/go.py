"""Go's error-handling mutators: drop an ``if err != nil { return ... }`` guard, or flip
the check to ``err == nil``."""

from __future__ import annotations

from gen09_treesitter.mutators.base import TreeMutator, fixed
from gen09_treesitter.mutators.features import is_err_check
from gen09_treesitter.mutators.remove import deletion
from gen09_treesitter.mutators.safety import keeps_compiling
from gen09_treesitter.mutators.syntax import named, operator, operator_node, statement_of

GO = ("go",)


def _returns(block) -> bool:
    """True when the block ends with a ``return``."""
    inner = named(block)
    statements = named(inner[0]) if inner and inner[0].type == "statement_list" else []
    return bool(statements) and statements[-1].type == "return_statement"


def _guard_removal(scope, node):
    """Edits deleting the guard ``node``; a guard with an ``err := f()`` initializer leaves
    the call ``f()`` in its place."""
    init = node.child_by_field_name("initializer")
    if init is None:
        statement = statement_of(node, scope.dialect)
        return deletion(scope, statement) if statement is not None else None
    left, right = init.child_by_field_name("left"), init.child_by_field_name("right")
    if init.type != "short_var_declaration" or left is None or right is None or len(named(left)) != 1 \
            or len(named(right)) != 1 or named(right)[0].type != "call_expression" \
            or statement_of(node, scope.dialect) is None:
        return None
    call = named(right)[0]
    ranges = [(node.start_byte, call.start_byte), (call.end_byte, node.end_byte)]
    return [(node.start_byte, node.end_byte, scope.text(call))] if keeps_compiling(scope, ranges) else None


def _guards(scope):
    for node in scope.nodes({"if_statement"}):
        condition = node.child_by_field_name("condition")
        body = node.child_by_field_name("consequence")
        if node.child_by_field_name("alternative") is None and body is not None and _returns(body) \
                and is_err_check(condition, scope.dialect) and operator(condition) == "!=":
            edits = _guard_removal(scope, node)
            if edits:
                yield fixed(*edits)


def _flips(scope):
    for node in scope.nodes({"binary_expression"}):
        if is_err_check(node, scope.dialect):
            token = operator_node(node)
            yield fixed((token.start_byte, token.end_byte, b"==" if operator(node) == "!=" else b"!="))


REMOVE_ERR_GUARD = TreeMutator(
    name="remove_err_guard",
    description="Remove an `if err != nil { return ... }` guard so the error is ignored.",
    languages=GO, conditions=("err_guard",), min_complexity=2, likelihood=0.25, finder=_guards,
)

FLIP_ERR_CHECK = TreeMutator(
    name="op_flip_err_check",
    description="Swap == and != in an error check (err != nil to err == nil, and back).",
    languages=GO, conditions=("err_check",), min_complexity=2, likelihood=0.4, finder=_flips,
)
