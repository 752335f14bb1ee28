"""Control-flow mutators: invert an if/else, shuffle a function's statements, swap the
branches of a conditional expression, swap ``break`` and ``continue``, and move a loop
bound by one."""

from __future__ import annotations

from gen09_treesitter.mutators.base import TreeMutator, fixed
from gen09_treesitter.mutators.features import loop_bounds
from gen09_treesitter.mutators.syntax import (
    EVERY,
    WITH_TERNARY,
    ancestors,
    branch_range,
    core,
    else_branch,
    has_heredoc,
    is_value_tail,
    named,
    text,
    walk,
)

BOUNDS = {"<": b"<=", "<=": b"<", ">": b">=", ">=": b">", "..": b"..=", "..=": b".."}
RUBY_BOUNDS = {**BOUNDS, "..": b"...", "...": b".."}  # Ruby: a..b includes b, a...b does not
# nodes a break/continue cannot leave: functions and closures
FUNCTIONS = frozenset({
    "function_declaration", "function_expression", "function", "arrow_function", "method_definition",
    "generator_function", "generator_function_declaration", "func_literal", "method_declaration",
    "function_item", "closure_expression", "lambda_expression", "function_definition", "method",
    "singleton_method", "lambda", "constructor_declaration",
})
RUBY_ITERATIONS = frozenset({"do_block", "block"})  # `next`/`break` work in a block like in a loop


def _binds(condition) -> bool:
    """True when a condition binds a name only its first branch sees (Rust ``if let``,
    Java ``x instanceof Foo f``)."""
    return condition is not None and any(
        n.type in ("let_condition", "let_chain") or n.type == "instanceof_expression"
        and (n.child_by_field_name("name") or n.child_by_field_name("pattern")) for n in walk(condition))


def _invert(scope):
    d = scope.dialect
    for node in scope.nodes(d.ifs):
        consequence, alternative = node.child_by_field_name("consequence"), else_branch(node, d)
        if consequence is None or alternative is None or _binds(node.child_by_field_name("condition")):
            continue
        a, b = branch_range(consequence, d), branch_range(alternative, d)
        if a and b and scope.data[a[0]:a[1]] != scope.data[b[0]:b[1]]:
            yield fixed((a[0], a[1], scope.data[b[0]:b[1]]), (b[0], b[1], scope.data[a[0]:a[1]]))


def _movable(statement, scope) -> bool:
    d = scope.dialect
    inner = core(statement, d)
    fixed_types = d.declarations | d.jumps
    return not {statement.type, inner.type} & fixed_types and not is_value_tail(statement, d) \
        and not has_heredoc(statement)


def _shuffle(scope):
    """One site per run of two or more movable statements between the fixed ones, so no
    statement moves above a declaration it might use."""
    statements, runs = scope.statements, [[]]
    for i, statement in enumerate(statements[:-1]):  # the last one stays
        if _movable(statement, scope):
            runs[-1].append(i)
        elif runs[-1]:
            runs.append([])
    for slots in (r for r in runs if len(r) >= 2):
        yield _reorder(scope, slots)


def _reorder(scope, slots):
    statements = scope.statements

    def site(rng):
        order = list(slots)
        for _ in range(8):
            rng.shuffle(order)
            if order != slots:
                break
        if order == slots:
            order = order[1:] + order[:1]
        return [(statements[slot].start_byte, statements[slot].end_byte, scope.text(statements[source]))
                for slot, source in zip(slots, order, strict=True)]

    return site


def _ternary_swap(scope):
    for node in scope.nodes(scope.dialect.ternaries):
        yes, no = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if yes is not None and no is not None and scope.text(yes) != scope.text(no):
            yield fixed((yes.start_byte, yes.end_byte, scope.text(no)),
                        (no.start_byte, no.end_byte, scope.text(yes)))


def _in_loop(node, scope) -> bool:
    """True when the innermost construct ``node`` can break out of is a loop."""
    d = scope.dialect
    for parent in ancestors(node):
        if parent.type in d.loops or scope.language == "ruby" and parent.type in RUBY_ITERATIONS:
            return True
        if parent.type in d.switches or parent.type in FUNCTIONS:
            return False
    return False


def _break_continue(scope):
    d = scope.dialect
    for node in scope.nodes(d.breaks | d.continues):
        if named(node) or not _in_loop(node, scope):  # a label or a value: leave it
            continue
        keyword = node.children[0] if node.children else node
        new = b"break" if node.type in d.continues else b"next" if scope.language == "ruby" else b"continue"
        yield fixed((keyword.start_byte, keyword.end_byte, new))


def _off_by_one(scope):
    for loop in scope.nodes(scope.dialect.loops):
        for token in loop_bounds(loop, scope.dialect):
            table = RUBY_BOUNDS if scope.language == "ruby" else BOUNDS
            yield fixed((token.start_byte, token.end_byte, table[text(token)]))


INVERT_IF = TreeMutator(
    name="ctrl_invert_if",
    description="Swap the bodies of an if/else so each branch runs under the other's condition.",
    languages=EVERY, conditions=("if_else",), min_complexity=2, likelihood=0.25, finder=_invert,
)

SHUFFLE_LINES = TreeMutator(
    name="ctrl_shuffle",
    description="Shuffle the statements of a function body between its declarations "
                "(declarations, jumps and the last statement stay in place).",
    languages=EVERY, conditions=("body2",), min_complexity=1, likelihood=0.25, finder=_shuffle,
)

TERNARY_SWAP = TreeMutator(
    name="ctrl_ternary_swap",
    description="Swap the two branches of a conditional expression (c ? a : b to c ? b : a).",
    languages=WITH_TERNARY, conditions=("ternary",), min_complexity=2, likelihood=0.4, finder=_ternary_swap,
)

BREAK_CONTINUE = TreeMutator(
    name="ctrl_break_continue",
    description="Turn a loop's break into continue or continue into break (Ruby: next).",
    languages=EVERY, conditions=("loop_jump",), min_complexity=2, likelihood=0.4, finder=_break_continue,
)

LOOP_OFF_BY_ONE = TreeMutator(
    name="loop_off_by_one",
    description="Move a loop bound by one: < to <= (and back), > to >=, a..b to a..=b (Ruby a...b).",
    languages=EVERY, conditions=("loop_bound",), min_complexity=2, likelihood=0.4, finder=_off_by_one,
)
