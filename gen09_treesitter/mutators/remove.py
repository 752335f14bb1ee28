"""Removal mutators: drop an assignment, a conditional, a loop, a conditional expression,
a try/catch wrapper or a null check.

A statement is deleted with its whole lines when it stands alone on them. The last
statement of a function body is never deleted (it is often what the function returns, and
Go and Java reject a function that no longer ends in one), nor a Rust block's value, nor a
statement whose removal ``safety.keeps_compiling`` rejects.
"""

from __future__ import annotations

from gen09_treesitter.mutators.base import Edit, TreeMutator, fixed
from gen09_treesitter.mutators.features import null_operand
from gen09_treesitter.mutators.safety import keeps_compiling
from gen09_treesitter.mutators.syntax import (
    EVERY,
    WITH_TERNARY,
    has_heredoc,
    is_value_tail,
    named,
    operator,
    statement_of,
    strip_parens,
    text,
    walk,
)

WITH_TRY = ("javascript", "typescript", "tsx", "java", "cpp")
WITH_NULL = ("javascript", "typescript", "tsx", "java", "c", "cpp")
BRACED = frozenset({"block", "statement_block", "compound_statement"})
# Java exceptions a try may stop catching without a compile error
UNCHECKED = frozenset({
    "RuntimeException", "IllegalArgumentException", "IllegalStateException", "NullPointerException",
    "NumberFormatException", "IndexOutOfBoundsException", "ArrayIndexOutOfBoundsException",
    "StringIndexOutOfBoundsException", "ClassCastException", "ArithmeticException",
    "UnsupportedOperationException", "ConcurrentModificationException", "NoSuchElementException",
    "ArrayStoreException", "NegativeArraySizeException", "SecurityException", "Error",
})


def line_extent(scope, node) -> tuple[int, int]:
    """``node``'s byte range, widened to its whole lines (and their newline) when nothing
    else stands on them."""
    data, start, end = scope.data, node.start_byte, node.end_byte
    first = data.rfind(b"\n", 0, start) + 1
    last = data.find(b"\n", end)
    last = len(data) if last < 0 else last
    if data[first:start].strip() or data[end:last].strip():
        return start, end
    inside = scope.node.start_byte <= first and last < scope.node.end_byte
    return (first, last + 1) if inside else (start, end)


def deletion(scope, statement) -> list[Edit] | None:
    """The edit deleting ``statement`` (see the module docstring), or None."""
    if scope.statements and statement == scope.statements[-1] or is_value_tail(statement, scope.dialect) \
            or has_heredoc(statement):
        return None
    start, end = line_extent(scope, statement)
    return [(start, end, b"")] if keeps_compiling(scope, [(start, end)]) else None


def deletions(scope, types, where=None):
    """A site for each node of ``types`` (that ``where`` accepts) in statement position that
    may be deleted."""
    for node in scope.nodes(types):
        statement = statement_of(node, scope.dialect) if where is None or where(node) else None
        edits = deletion(scope, statement) if statement is not None else None
        if edits:
            yield fixed(*edits)


def block_inner(scope, node, at: int) -> bytes:
    """The code of a branch without its braces (a braceless statement as it is), its lines
    indented for a statement that starts at byte ``at``."""
    if node.type not in BRACED:
        return scope.text(node)
    lines = scope.data[node.start_byte + 1:node.end_byte - 1].split(b"\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) <= 1:
        return b"".join(lines).strip()
    common = min(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip())
    indent = scope.data[scope.data.rfind(b"\n", 0, at) + 1:at]
    indent = indent if not indent.strip() else b""
    out = b"\n".join(indent + ln[common:] if ln.strip() else ln.strip() for ln in lines)
    return out[len(indent):]


def declared(node) -> set[str]:
    """Names that declarations directly in block ``node`` introduce."""
    names = set()
    for statement in named(node):
        for n in walk(statement):
            parent = n.parent
            if n.type == "identifier" and parent is not None and n in (
                    parent.child_by_field_name("name"), parent.child_by_field_name("declarator")) \
                    and parent.type in ("variable_declarator", "init_declarator", "declaration"):
                names.add(text(n))
    return names


def unwrap(scope, statement, block) -> list[Edit] | None:
    """Replace ``statement`` by the code of ``block``, unless a name declared in the block
    is declared elsewhere in the function too (it would be declared twice)."""
    if block.type in BRACED:
        inner = declared(block)
        outside = {text(n) for n in walk(scope.node) if n.type == "identifier"
                   and not (statement.start_byte <= n.start_byte < statement.end_byte)
                   and n.parent is not None and n.parent.type in ("variable_declarator", "init_declarator")}
        if inner & outside:
            return None
    return [(statement.start_byte, statement.end_byte, block_inner(scope, block, statement.start_byte))]


def _assigns(scope):
    return deletions(scope, scope.dialect.assignments)


def _conditionals(scope):
    return deletions(scope, scope.dialect.ifs)


def _loops(scope):
    return deletions(scope, scope.dialect.loops)


def _ternaries(scope):
    for node in scope.nodes(scope.dialect.ternaries):
        branches = [b for b in (node.child_by_field_name("consequence"),
                                node.child_by_field_name("alternative")) if b is not None]
        if len(branches) == 2:
            yield lambda rng, n=node, b=branches: [(n.start_byte, n.end_byte, scope.text(rng.choice(b)))]


def _catches_only_unchecked(try_node, scope) -> bool:
    """Java: every caught type is unchecked or declared by the method's ``throws``."""
    throws = next((c for c in scope.node.children if c.type == "throws"), None)
    declared_types = {text(t) for t in walk(throws) if t.type == "type_identifier"} if throws else set()
    if declared_types & {"Exception", "Throwable"}:
        return True
    for clause in (c for c in try_node.children if c.type == "catch_clause"):
        caught = {text(t) for t in walk(clause)
                  if t.type == "type_identifier" and t.parent.type == "catch_type"}
        if not caught <= UNCHECKED | declared_types:
            return False
    return True


def _try_catch(scope):
    for node in scope.nodes(scope.dialect.trys):
        body = node.child_by_field_name("body")
        if body is None or statement_of(node, scope.dialect) is None:
            continue
        if scope.language == "java" and not _catches_only_unchecked(node, scope):
            continue
        edits = unwrap(scope, node, body)
        if edits:
            yield fixed(*edits)


def _null_checks(scope):
    d = scope.dialect
    for node in scope.nodes(d.ifs):
        statement = statement_of(node, d)
        condition = strip_parens(node.child_by_field_name("condition"))
        body = node.child_by_field_name("consequence")
        if statement is None or body is None or node.child_by_field_name("alternative") is not None \
                or null_operand(condition, d) is None:
            continue
        if operator(condition) in ("==", "==="):  # a guard: it goes, what it guarded against stays
            edits = deletion(scope, statement)
        else:  # the guarded code runs unguarded
            edits = unwrap(scope, statement, body)
        if edits:
            yield fixed(*edits)


REMOVE_ASSIGN = TreeMutator(
    name="remove_assign",
    description="Remove an assignment statement.",
    languages=EVERY, conditions=("assign",), min_complexity=1, likelihood=0.25, finder=_assigns,
)

REMOVE_CONDITIONAL = TreeMutator(
    name="remove_cond",
    description="Remove an if statement together with its branches.",
    languages=EVERY, conditions=("if",), min_complexity=2, likelihood=0.25, finder=_conditionals,
)

REMOVE_LOOP = TreeMutator(
    name="remove_loop",
    description="Remove a loop.",
    languages=EVERY, conditions=("loop",), min_complexity=2, likelihood=0.25, finder=_loops,
)

REMOVE_TERNARY = TreeMutator(
    name="remove_ternary",
    description="Replace a conditional expression by one of its two branches.",
    languages=WITH_TERNARY, conditions=("ternary",), min_complexity=2, likelihood=0.25, finder=_ternaries,
)

REMOVE_TRY_CATCH = TreeMutator(
    name="remove_try_catch",
    description="Replace a try statement by the code it guarded (Java: only unchecked catches).",
    languages=WITH_TRY, conditions=("try",), min_complexity=1, likelihood=0.25, finder=_try_catch,
)

REMOVE_NULL_CHECK = TreeMutator(
    name="remove_null_check",
    description="Remove a null check: drop an `== null` guard, or run `!= null`-guarded code unguarded.",
    languages=WITH_NULL, conditions=("null_check",), min_complexity=2, likelihood=0.25, finder=_null_checks,
)
