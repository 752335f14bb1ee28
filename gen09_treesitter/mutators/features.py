"""Entity features for the tree-sitter mutators: complexity and the properties their
conditions name, from one walk over the entity's node.

Complexity is 1 + the decision points: ``if``s, loops, conditional expressions, case arms,
catch/rescue clauses, guard modifiers and ``&&``/``||`` operators. Properties:

=============  ======================================================================
``body2``      the function body has at least two statements
``if``         an ``if`` (``if_else``: one with a plain ``else``, not ``else if``)
``loop``       a loop (``loop_bound``: one whose condition compares with < <= > >=)
``assign``     an assignment with ``=``; ``aug_assign``: with ``+=``, ``-=``, ...
``binary_op``  an arithmetic or bitwise operator; ``compare``: a comparison;
               ``bool_op``: ``&&``/``||``; ``operands``: arithmetic or comparison;
               ``chain``: ``a + b + c`` or ``a && b && c``
``constant``   an integer literal; ``string``: a string literal with text in it
``boolean``    ``true``/``false`` or a ``!`` negation
``ternary``    a conditional expression; ``call_args2``: a call with two arguments or more
``try``        a try statement; ``loop_jump``: ``break``/``continue``/``next``
``null_check`` a comparison with null/nil; ``err_check``: ``err`` compared with nil
``err_guard``  ``if err != nil { ... }``; ``return_value``: ``return`` with a value
``nil_guard``  a guard modifier (``return x if ...``); ``safe_nav``: a ``&.`` call;
               ``or_default``: ``a || b``; ``or_assign``: ``||=``; ``bang_call``: ``save!``
=============  ======================================================================
"""

from __future__ import annotations

import re

from gen09_core.models import Features
from gen09_treesitter.mutators.syntax import (
    RELATIONAL,
    Scope,
    else_branch,
    family,
    named,
    operator,
    strip_parens,
    walk,
)

AUGMENTED = frozenset({"+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=", "**=", ">>>=", "&^="})
ERROR_NAME = re.compile(r"(err|[a-z0-9]Err|Error)$")
MODIFIERS = frozenset({"if_modifier", "unless_modifier"})
RANGES = frozenset({"..", "..=", "..."})


def entity_features(scope: Scope) -> Features:
    """Complexity and properties of the entity ``scope`` describes."""
    d = scope.dialect
    props = {"function"}
    if len(scope.statements) >= 2:
        props.add("body2")
    complexity = 1
    for node in walk(scope.node):
        if not node.is_named:
            continue
        t = node.type
        if t in d.ifs:
            props.add("if")
            if else_branch(node, d) is not None:
                props.add("if_else")
            if is_err_check(strip_parens(node.child_by_field_name("condition")), d):
                props.add("err_guard")
        elif t in d.loops:
            props.add("loop")
            if loop_bounds(node, d):
                props.add("loop_bound")
        elif t in d.binaries:
            props.update(_binary(node, d))
        elif t in d.assignments:
            op = operator(node)
            props.add("assign" if op in (None, "=") else "aug_assign" if op in AUGMENTED else
                      "or_assign" if op == "||=" else "other_assign")
        elif t in d.integers:
            props.add("constant")
        elif t in d.strings:
            props.add("string")
        elif t in d.booleans or t in d.unaries and operator(node) in ("!", "not"):
            props.add("boolean")
        elif t in d.calls:
            props.update(_call(node))
        elif t in d.trys:
            props.add("try")
        elif t in d.breaks or t in d.continues:
            props.add("loop_jump")
        elif t in ("return_statement", "return") and named(node):
            props.add("return_value")
        elif t in MODIFIERS:
            props.add("nil_guard")
        complexity += (t in d.ifs or t in d.loops or t in d.ternaries or t in d.decisions
                       or t in d.binaries and family(operator(node)) == "logical")
        if t in d.ternaries:
            props.add("ternary")
    return Features(complexity, frozenset(props))


def _binary(node, d) -> set[str]:
    op = operator(node)
    fam = family(op)
    props = set()
    if fam == "logical":
        props.add("bool_op")
        if op in ("||", "or"):
            props.add("or_default")
    elif fam is not None:
        props.update(("operands", "binary_op" if fam == "arith" else "compare"))
    left = node.child_by_field_name("left")
    if fam != "compare" and left is not None and left.type in d.binaries and family(operator(left)) == fam:
        props.add("chain")
    if fam == "compare" and null_operand(node, d) is not None:
        props.add("null_check")
        if is_err_check(node, d):
            props.add("err_check")
    return props


def _call(node) -> set[str]:
    props = set()
    args = node.child_by_field_name("arguments")
    if args is not None and len(named(args)) >= 2:
        props.add("call_args2")
    op = node.child_by_field_name("operator")
    if op is not None and op.type == "&.":
        props.add("safe_nav")
    method = node.child_by_field_name("method")
    if method is not None and method.text.endswith(b"!"):
        props.add("bang_call")
    return props


def null_operand(node, d):
    """The other operand of ``x == null`` / ``nil != x`` (a binary comparison), or None."""
    if node is None or node.type not in d.binaries or operator(node) not in ("==", "!=", "===", "!=="):
        return None
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return None
    if right.type in d.nulls:
        return left
    return right if left.type in d.nulls else None


def is_err_check(node, d) -> bool:
    """True for ``err != nil`` / ``err == nil`` (any name ending in ``err``/``Err``/``Error``)."""
    other = null_operand(node, d)
    return other is not None and other.type == "identifier" and bool(ERROR_NAME.search(other.text.decode()))


def loop_bounds(loop, d) -> list:
    """The bound tokens of a loop: ``<``/``<=``/``>``/``>=`` in its condition, or the
    ``..``/``..=``/``...`` of a ``for x in a..b`` loop (Rust, Ruby)."""
    condition = loop.child_by_field_name("condition")
    if condition is None:  # Go: for init; cond; post
        clause = next((c for c in loop.named_children if c.type == "for_clause"), None)
        condition = clause.child_by_field_name("condition") if clause is not None else None
    if condition is not None:
        return [n.child_by_field_name("operator") for n in walk(condition)
                if n.type in d.binaries and operator(n) in RELATIONAL]
    value = loop.child_by_field_name("value")
    if value is not None and value.type == "in":  # Ruby: for i in 1..n
        value = value.named_children[0] if value.named_children else None
    if value is None or value.type not in ("range_expression", "range"):
        return []
    return [c for c in value.children if not c.is_named and c.type in RANGES]
