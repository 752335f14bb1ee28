"""Operation mutators: break operator chains, change constants and operators, swap
operands, flip comparison and boolean operators."""

from __future__ import annotations

import libcst as cst

from gen09_python.mutators.base import Mutator, SiteTransformer


def _same_space(new_cls, old):
    """An operator of class ``new_cls`` that keeps ``old``'s surrounding whitespace."""
    kwargs = {}
    for attr in ("whitespace_before", "whitespace_after", "whitespace_between"):
        if hasattr(old, attr) and attr in new_cls.__dataclass_fields__:
            kwargs[attr] = getattr(old, attr)
    if "whitespace_between" in new_cls.__dataclass_fields__ and "whitespace_between" not in kwargs:
        kwargs["whitespace_between"] = cst.SimpleWhitespace(" ")
    return new_cls(**kwargs)


class BreakChains(SiteTransformer):
    """``a + b + c`` → ``a + c``; ``a and b and c`` → ``a and c``: drop the middle operand
    of a chained binary or boolean operation."""

    def leave_BinaryOperation(self, original_node, updated_node):
        """Collapse a chosen chain ``(l op1 m) op2 r`` to ``l op2 r``."""
        left = updated_node.left
        if not isinstance(left, cst.BinaryOperation) or left.lpar or not self.site():
            return updated_node
        return updated_node.with_changes(left=left.left)

    def leave_BooleanOperation(self, original_node, updated_node):
        """Collapse a chosen boolean chain the same way."""
        left = updated_node.left
        if not isinstance(left, cst.BooleanOperation) or left.lpar or not self.site():
            return updated_node
        return updated_node.with_changes(left=left.left)


class ChangeConstants(SiteTransformer):
    """Shift an integer literal by one up or down."""

    def leave_Integer(self, original_node, updated_node):
        """Replace a chosen integer literal ``n`` by ``n + 1`` or ``n - 1`` (never below 0)."""
        try:
            value = int(updated_node.value, 0)
        except ValueError:
            return updated_node
        if not self.site():
            return updated_node
        delta = 1 if value == 0 or self.rng.random() < 0.5 else -1
        return updated_node.with_changes(value=str(value + delta))


_ARITH = {
    cst.Add: (cst.Subtract,),
    cst.Subtract: (cst.Add,),
    cst.Multiply: (cst.FloorDivide, cst.Add),
    cst.Divide: (cst.Multiply, cst.FloorDivide),
    cst.FloorDivide: (cst.Divide, cst.Modulo),
    cst.Modulo: (cst.FloorDivide,),
    cst.Power: (cst.Multiply,),
    cst.LeftShift: (cst.RightShift,),
    cst.RightShift: (cst.LeftShift,),
    cst.BitOr: (cst.BitAnd, cst.BitXor),
    cst.BitAnd: (cst.BitOr,),
    cst.BitXor: (cst.BitOr,),
}


class ChangeOperator(SiteTransformer):
    """Replace an arithmetic or bitwise operator by a related one (``+`` ↔ ``-``, ...)."""

    def leave_BinaryOperation(self, original_node, updated_node):
        """Swap a chosen operation's operator for a neighbour of its family."""
        options = _ARITH.get(type(updated_node.operator))
        if not options or not self.site():
            return updated_node
        new_cls = options[self.rng.randrange(len(options))]
        return updated_node.with_changes(operator=_same_space(new_cls, updated_node.operator))

    def leave_AugAssign(self, original_node, updated_node):
        """Augmented assignments too: ``+=`` ↔ ``-=``."""
        pairs = {cst.AddAssign: cst.SubtractAssign, cst.SubtractAssign: cst.AddAssign,
                 cst.MultiplyAssign: cst.FloorDivideAssign, cst.BitOrAssign: cst.BitAndAssign,
                 cst.BitAndAssign: cst.BitOrAssign}
        new_cls = pairs.get(type(updated_node.operator))
        if new_cls is None or not self.site():
            return updated_node
        return updated_node.with_changes(operator=_same_space(new_cls, updated_node.operator))


class SwapOperands(SiteTransformer):
    """``a - b`` → ``b - a``; ``x < y`` → ``y < x`` (the operator is kept)."""

    def leave_BinaryOperation(self, original_node, updated_node):
        """Swap the operands of a chosen binary operation."""
        if not self.site():
            return updated_node
        return updated_node.with_changes(left=updated_node.right, right=updated_node.left)

    def leave_Comparison(self, original_node, updated_node):
        """Swap the two sides of a chosen single comparison."""
        if len(updated_node.comparisons) != 1 or not self.site():
            return updated_node
        target = updated_node.comparisons[0]
        if isinstance(target.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)):
            return updated_node
        return updated_node.with_changes(
            left=target.comparator, comparisons=[target.with_changes(comparator=updated_node.left)])


_FLIP = {
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.LessThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
}


class FlipComparison(SiteTransformer):
    """Negate a comparison operator: ``==`` ↔ ``!=``, ``<`` ↔ ``>=``, ``in`` ↔ ``not in``."""

    def leave_ComparisonTarget(self, original_node, updated_node):
        """Flip a chosen comparison operator to its negation."""
        new_cls = _FLIP.get(type(updated_node.operator))
        if new_cls is None or not self.site():
            return updated_node
        return updated_node.with_changes(operator=_same_space(new_cls, updated_node.operator))


class FlipBoolean(SiteTransformer):
    """``and`` ↔ ``or``."""

    def leave_BooleanOperation(self, original_node, updated_node):
        """Flip a chosen boolean operator."""
        if not self.site():
            return updated_node
        new_cls = cst.Or if isinstance(updated_node.operator, cst.And) else cst.And
        return updated_node.with_changes(operator=_same_space(new_cls, updated_node.operator))


BREAK_CHAINS = Mutator(
    name="op_break_chains",
    description="Drop the middle operand of a chained binary or boolean operation.",
    kinds=("function", "method"),
    conditions=("chain",),
    min_complexity=1,
    likelihood=0.4,
    transformer=BreakChains,
)

CHANGE_CONSTANTS = Mutator(
    name="op_change_const",
    description="Shift an integer constant by one.",
    kinds=("function", "method"),
    conditions=("constant",),
    min_complexity=1,
    likelihood=0.4,
    transformer=ChangeConstants,
)

CHANGE_OPERATOR = Mutator(
    name="op_change",
    description="Replace an arithmetic or bitwise operator by a related one.",
    kinds=("function", "method"),
    conditions=("binary_op",),
    min_complexity=1,
    likelihood=0.4,
    transformer=ChangeOperator,
)

SWAP_OPERANDS = Mutator(
    name="op_swap",
    description="Swap the operands of a binary operation or comparison.",
    kinds=("function", "method"),
    conditions=(),
    min_complexity=1,
    likelihood=0.4,
    transformer=SwapOperands,
)

FLIP_COMPARISON = Mutator(
    name="op_flip_compare",
    description="Negate a comparison operator (== to !=, < to >=, in to not in).",
    kinds=("function", "method"),
    conditions=("compare",),
    min_complexity=1,
    likelihood=0.4,
    transformer=FlipComparison,
)

FLIP_BOOLEAN = Mutator(
    name="op_flip_bool",
    description="Flip a boolean operator (and to or, or to and).",
    kinds=("function", "method"),
    conditions=("bool_op",),
    min_complexity=2,
    likelihood=0.4,
    transformer=FlipBoolean,
)
