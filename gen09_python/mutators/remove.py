"""Removal mutators: drop an assignment, a conditional, a loop, or a with/try wrapper."""

from __future__ import annotations

import libcst as cst

from gen09_python.mutators.base import Mutator, SiteTransformer

_ASSIGNS = (cst.Assign, cst.AugAssign, cst.AnnAssign)


class RemoveAssign(SiteTransformer):
    """Delete an assignment statement line (``x = ...``, ``x += ...``, ``x: T = ...``)."""

    def leave_SimpleStatementLine(self, original_node, updated_node):
        """Remove the assignments of a chosen line (the line, when nothing else is on it)."""
        assigns = [s for s in updated_node.body if isinstance(s, _ASSIGNS)
                   and not (isinstance(s, cst.AnnAssign) and s.value is None)]
        if not assigns or not self.site():
            return updated_node
        removed = {id(s) for s in assigns}
        kept = [s for s in updated_node.body if id(s) not in removed]
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated_node.with_changes(body=kept)


class _RemoveCompound(SiteTransformer):
    kinds: tuple = ()

    def __init__(self, rng, chosen):
        super().__init__(rng, chosen)
        self._elifs: set[int] = set()

    def visit_If(self, node):
        """Remember ``elif`` nodes: they are not statements of their own."""
        if isinstance(node.orelse, cst.If):
            self._elifs.add(id(node.orelse))
        return True

    def _remove(self, original_node, updated_node):
        if id(original_node) in self._elifs or not self.site():
            return updated_node
        return cst.RemoveFromParent()


class RemoveConditional(_RemoveCompound):
    """Delete a whole ``if`` statement (with its ``elif``/``else`` branches)."""

    def leave_If(self, original_node, updated_node):
        """Remove a chosen ``if`` statement."""
        return self._remove(original_node, updated_node)


class RemoveLoop(_RemoveCompound):
    """Delete a ``for`` or ``while`` loop."""

    def leave_For(self, original_node, updated_node):
        """Remove a chosen ``for`` loop."""
        return self._remove(original_node, updated_node)

    def leave_While(self, original_node, updated_node):
        """Remove a chosen ``while`` loop."""
        return self._remove(original_node, updated_node)


class RemoveWrapper(SiteTransformer):
    """Unwrap a ``with`` or ``try`` block: its body stays, the context manager or the
    handlers (``except``/``else``/``finally``) go."""

    def _unwrap(self, updated_node):
        if not isinstance(updated_node.body, cst.IndentedBlock) or not self.site():
            return updated_node
        statements = list(updated_node.body.body)
        if updated_node.leading_lines and statements:
            statements[0] = statements[0].with_changes(
                leading_lines=[*updated_node.leading_lines, *statements[0].leading_lines])
        return cst.FlattenSentinel(statements)

    def leave_With(self, original_node, updated_node):
        """Replace a chosen ``with`` block by its body."""
        return self._unwrap(updated_node)

    def leave_Try(self, original_node, updated_node):
        """Replace a chosen ``try`` statement by its body."""
        return self._unwrap(updated_node)


REMOVE_ASSIGN = Mutator(
    name="remove_assign",
    description="Remove an assignment statement.",
    kinds=("function", "method"),
    conditions=("assign",),
    min_complexity=1,
    likelihood=0.25,
    transformer=RemoveAssign,
)

REMOVE_CONDITIONAL = Mutator(
    name="remove_cond",
    description="Remove an if statement together with its branches.",
    kinds=("function", "method"),
    conditions=("if",),
    min_complexity=2,
    likelihood=0.25,
    transformer=RemoveConditional,
)

REMOVE_LOOP = Mutator(
    name="remove_loop",
    description="Remove a for or while loop.",
    kinds=("function", "method"),
    conditions=("loop",),
    min_complexity=2,
    likelihood=0.25,
    transformer=RemoveLoop,
)

REMOVE_WRAPPER = Mutator(
    name="remove_wrapper",
    description="Remove a with or try wrapper, keeping the statements it wrapped.",
    kinds=("function", "method"),
    conditions=("wrapper",),
    min_complexity=1,
    likelihood=0.25,
    transformer=RemoveWrapper,
)
