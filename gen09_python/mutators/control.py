"""Control-flow mutators: invert an if/else, shuffle a function's statements."""

from __future__ import annotations

import libcst as cst

from gen09_python.mutators.base import Mutator, SiteTransformer


class InvertIfElse(SiteTransformer):
    """``if c: A else: B`` → ``if c: B else: A`` (a true ``else``, not an ``elif``)."""

    def leave_If(self, original_node, updated_node):
        """Swap the two branches of a chosen if/else."""
        orelse = updated_node.orelse
        if not isinstance(orelse, cst.Else) or not self.site():
            return updated_node
        return updated_node.with_changes(body=orelse.body, orelse=orelse.with_changes(body=updated_node.body))


class ShuffleLines(SiteTransformer):
    """Reorder the statements of a function body (a leading docstring stays first)."""

    def leave_FunctionDef(self, original_node, updated_node):
        """Shuffle a chosen function's top-level statements into a different order."""
        body = updated_node.body
        if not isinstance(body, cst.IndentedBlock):
            return updated_node
        head, rest = _split_docstring(list(body.body))
        if len(rest) < 2 or not self.site():
            return updated_node
        order = list(range(len(rest)))
        for _ in range(8):
            self.rng.shuffle(order)
            if order != sorted(order):
                break
        if order == sorted(order):
            order = order[1:] + order[:1]
        shuffled = [rest[i] for i in order]
        return updated_node.with_changes(body=body.with_changes(body=head + shuffled))


def _split_docstring(statements):
    first = statements[0] if statements else None
    if (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
            and isinstance(first.body[0], cst.Expr)
            and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))):
        return statements[:1], statements[1:]
    return [], statements


INVERT_IF = Mutator(
    name="ctrl_invert_if",
    description="Swap the bodies of an if/else so each branch runs under the other's condition.",
    kinds=("function", "method"),
    conditions=("if_else",),
    min_complexity=2,
    likelihood=0.25,
    transformer=InvertIfElse,
)

SHUFFLE_LINES = Mutator(
    name="ctrl_shuffle",
    description="Shuffle the order of the statements in a function body.",
    kinds=("function", "method"),
    conditions=("body2",),
    min_complexity=1,
    likelihood=0.25,
    transformer=ShuffleLines,
)
