"""Class mutators: remove a base class, remove methods, shuffle method order."""

from __future__ import annotations

import libcst as cst

from gen09_python.mutators.base import Mutator, SiteTransformer


def _methods(body: cst.IndentedBlock) -> list[int]:
    return [i for i, s in enumerate(body.body) if isinstance(s, cst.FunctionDef)]


class _ClassTransformer(SiteTransformer):
    """Acts on the outermost class only (the entity itself), not on nested classes."""

    def __init__(self, rng, chosen):
        super().__init__(rng, chosen)
        self._depth = 0

    def visit_ClassDef(self, node):
        """Track nesting."""
        self._depth += 1
        return True

    def leave_ClassDef(self, original_node, updated_node):
        """Rewrite only the entity's own class."""
        self._depth -= 1
        if self._depth:
            return updated_node
        return self.rewrite(updated_node)

    def rewrite(self, node: cst.ClassDef):
        """Subclasses: the rewritten class, counting its sites with ``site()``."""
        raise NotImplementedError


class RemoveBases(_ClassTransformer):
    """Remove one positional base class from the class statement."""

    def rewrite(self, node):
        """Drop each chosen positional base."""
        kept = []
        for arg in node.bases:
            if arg.keyword is None and not arg.star and self.site():
                continue
            kept.append(arg)
        if len(kept) == len(node.bases):
            return node
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(bases=kept)


class RemoveFuncs(_ClassTransformer):
    """Remove methods from a class body."""

    def rewrite(self, node):
        """Drop each chosen method."""
        if not isinstance(node.body, cst.IndentedBlock):
            return node
        drop = {i for i in _methods(node.body) if self.site()}
        if not drop:
            return node
        body = [s for i, s in enumerate(node.body.body) if i not in drop]
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return node.with_changes(body=node.body.with_changes(body=body))


class ShuffleMethods(_ClassTransformer):
    """Reorder the methods of a class (other statements keep their places)."""

    def rewrite(self, node):
        """Shuffle the method slots when this class is chosen."""
        if not isinstance(node.body, cst.IndentedBlock):
            return node
        slots = _methods(node.body)
        if len(slots) < 2 or not self.site():
            return node
        order = list(slots)
        for _ in range(8):
            self.rng.shuffle(order)
            if order != slots:
                break
        if order == slots:
            order = order[1:] + order[:1]
        body = list(node.body.body)
        for slot, source in zip(slots, order, strict=True):
            moved = node.body.body[source]
            body[slot] = moved.with_changes(leading_lines=node.body.body[slot].leading_lines)
        return node.with_changes(body=node.body.with_changes(body=body))


REMOVE_BASES = Mutator(
    name="class_rm_base",
    description="Remove a base class from a class statement.",
    kinds=("class",),
    conditions=("bases",),
    min_complexity=1,
    likelihood=0.25,
    transformer=RemoveBases,
)

REMOVE_FUNCS = Mutator(
    name="class_rm_funcs",
    description="Remove one or more methods from a class.",
    kinds=("class",),
    conditions=("methods",),
    min_complexity=1,
    likelihood=0.15,
    transformer=RemoveFuncs,
)

SHUFFLE_METHODS = Mutator(
    name="class_shuffle_funcs",
    description="Shuffle the order of the methods in a class.",
    kinds=("class",),
    conditions=("methods2",),
    min_complexity=1,
    likelihood=0.25,
    transformer=ShuffleMethods,
)
