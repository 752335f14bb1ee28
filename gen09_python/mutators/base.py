"""The mutator protocol, entity features (conditions + complexity) and the site machinery.

A mutator rewrites *sites* (an ``if`` with an ``else``, a binary operation, ...) inside one
entity. It first counts the entity's sites, then picks each with probability ``likelihood``
(at least one, chosen by the seeded ``random.Random`` it is handed), and rewrites exactly
those in a second pass. Everything outside the entity is left byte-for-byte intact.
"""

from __future__ import annotations

import ast
import functools
import random
from collections.abc import Callable

import libcst as cst
from attrs import frozen

from gen09_core.models import Entity, Features, Modifier


@frozen(kw_only=True)
class Mutator(Modifier):
    """One procedural modifier: its description plus the libcst transformer class that does it."""

    transformer: Callable[..., SiteTransformer]
    language: str = "python"

    def features(self, path: str, text: str, entity: Entity) -> Features | None:
        """The entity's features, or None when it cannot be found or parsed."""
        return entity_features(text, entity)

    def mutate(self, path: str, text: str, entity: Entity, rng: random.Random) -> str | None:
        """The whole file with the entity mutated, or None when there is nothing to change.

        Fast path: the entity's own lines are parsed as a small module (its indentation
        taken off and put back, checked to round-trip exactly) and spliced back in; when
        that is not exact, the whole module is parsed and the node replaced in place.
        """
        lines = text.splitlines(keepends=True)
        start, end = entity.span.start, entity.span.end
        block = "".join(lines[start - 1:end])
        local = _local_module(block)
        if local is not None:
            module, indent = local
            node = module.body[0] if module.body else None
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and \
                    node.name.value == entity.name.rsplit(".", 1)[-1]:
                new_node = self._rewrite(node, rng)
                if new_node is None:
                    return None
                new_block = _indent(module.with_changes(body=[new_node, *module.body[1:]]).code, indent)
                code = "".join(lines[:start - 1]) + new_block + "".join(lines[end:])
                return None if code == text else code
        module = parse_module(text)
        if module is None:
            return None
        node = locate(module, entity)
        if node is None:
            return None
        new_node = self._rewrite(node, rng)
        if new_node is None:
            return None
        code = module.deep_replace(node, new_node).code
        return None if code == text else code

    def _rewrite(self, node, rng: random.Random):
        counter = self.transformer(None, None)
        node.visit(counter)
        if counter.count == 0:
            return None
        chosen = {i for i in range(counter.count) if rng.random() < self.likelihood}
        if not chosen:
            chosen = {rng.randrange(counter.count)}
        return node.visit(self.transformer(rng, frozenset(chosen)))


def _indent(code: str, indent: str) -> str:
    if not indent:
        return code
    return "".join(indent + ln if ln.strip() else ln for ln in code.splitlines(keepends=True))


def _local_module(block: str):
    """``(module, indent)`` for an entity's lines parsed on their own, or None when taking
    the indentation off and putting it back would not give the same bytes."""
    first = block.lstrip("\n")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    stripped = []
    for ln in block.splitlines(keepends=True):
        if ln.startswith(indent):
            stripped.append(ln[len(indent):])
        elif not ln.strip():
            stripped.append(ln)
        else:
            return None
    local = "".join(stripped)
    if _indent(local, indent) != block:
        return None
    module = parse_module(local)
    return None if module is None else (module, indent)


class SiteTransformer(cst.CSTTransformer):
    """Base transformer: ``site()`` numbers each candidate site in traversal order and
    says whether this one was chosen; empty indented blocks get a ``pass``."""

    def __init__(self, rng: random.Random | None, chosen: frozenset[int] | None):
        super().__init__()
        self.rng = rng
        self.chosen = chosen
        self.count = 0

    def site(self) -> bool:
        """Count one site; True when it is to be rewritten in this pass."""
        index = self.count
        self.count += 1
        return self.chosen is not None and index in self.chosen

    def leave_IndentedBlock(self, original_node, updated_node):
        """Keep blocks syntactically valid after statements were removed."""
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node


@functools.lru_cache(maxsize=64)
def parse_module(text: str) -> cst.Module | None:
    """The libcst module for ``text`` (cached; modules are immutable), None if unparsable."""
    try:
        return cst.parse_module(text)
    except (cst.ParserSyntaxError, RecursionError, ValueError):
        return None


@functools.lru_cache(maxsize=64)
def parse_ast(text: str) -> ast.Module | None:
    """The stdlib ``ast`` tree for ``text`` (cached), None if unparsable."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


class _Locator(cst.CSTVisitor):
    """Finds the n-th definition with a qualified name, walking as the pack's entity hook
    does (into classes, not into function bodies)."""

    def __init__(self, name: str, occurrence: int):
        super().__init__()
        self.name, self.occurrence = name, occurrence
        self.stack: list[str] = []
        self.seen = 0
        self.found = None
        self.depth_in_function = 0

    def _enter(self, node) -> bool:
        if self.found is not None:
            return False
        qual = ".".join([*self.stack, node.name.value])
        if qual == self.name:
            if self.seen == self.occurrence:
                self.found = node
                return False
            self.seen += 1
        return True

    def visit_ClassDef(self, node):
        """Descend into classes, tracking the qualified name."""
        if not self._enter(node):
            return False
        self.stack.append(node.name.value)
        return True

    def leave_ClassDef(self, original_node):
        """Pop the class name."""
        if self.stack and self.stack[-1] == original_node.name.value:
            self.stack.pop()

    def visit_FunctionDef(self, node):
        """Functions are entities, but what they define inside is not."""
        self._enter(node)
        return False


def locate(module: cst.Module, entity: Entity):
    """The libcst ``FunctionDef``/``ClassDef`` node of ``entity``, or None.

    ``entity.name`` is qualified inside the file (``Class.method``); when a name repeats
    (a property and its setter), the entity's position among same-named ones picks it.
    """
    occurrence = _same_name_index(module, entity)
    visitor = _Locator(entity.name, occurrence)
    module.visit(visitor)
    return visitor.found


def _same_name_index(module: cst.Module, entity: Entity) -> int:
    tree = parse_ast(module.code)
    if tree is None:
        return 0
    starts = [start for name, start, _ in _ast_entities(tree) if name == entity.name]
    earlier = [s for s in starts if s < entity.span.start]
    return len(earlier)


def _ast_entities(tree: ast.Module):
    """``(qualified name, first line incl. decorators, node)`` in the pack's walk order."""

    def walk(body, prefix):
        for node in body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                yield prefix + node.name, start, node
                if isinstance(node, ast.ClassDef):
                    yield from walk(node.body, prefix + node.name + ".")

    return list(walk(tree.body, ""))


def find_ast_node(text: str, entity: Entity):
    """The stdlib ``ast`` node of ``entity`` in ``text``, or None."""
    tree = parse_ast(text)
    if tree is None:
        return None
    for name, start, node in _ast_entities(tree):
        if name == entity.name and start == entity.span.start:
            return node
    for name, _, node in _ast_entities(tree):
        if name == entity.name:
            return node
    return None


def entity_features(text: str, entity: Entity) -> Features | None:
    """Complexity and properties of ``entity`` in ``text`` (stdlib ``ast``; cached per text)."""
    return _features_cached(text, entity.name, entity.span.start)


@functools.lru_cache(maxsize=4096)
def _features_cached(text: str, name: str, start: int) -> Features | None:
    from gen09_core.models import Span

    node = find_ast_node(text, Entity(name, "", Span(start, start)))
    if node is None:
        return None
    return Features(complexity(node), frozenset(properties(node)))


def complexity(node: ast.AST) -> int:
    """Cyclomatic complexity: 1 + decision points (branches, loops, handlers, boolean
    operands, comprehension filters, conditional expressions, match cases)."""
    score = 1
    for sub in ast.walk(node):
        if isinstance(sub, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.IfExp, ast.ExceptHandler,
                            ast.Assert, ast.match_case)):
            score += 1
        elif isinstance(sub, ast.BoolOp):
            score += len(sub.values) - 1
        elif isinstance(sub, ast.comprehension):
            score += 1 + len(sub.ifs)
    return score


def properties(node: ast.AST) -> set[str]:
    """Property names the conditions of mutators refer to."""
    props: set[str] = set()
    if isinstance(node, ast.ClassDef):
        props.add("class")
        if node.bases:
            props.add("bases")
        methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if methods:
            props.add("methods")
        if len(methods) >= 2:
            props.add("methods2")
    else:
        props.add("function")
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        if len(body) >= 2:
            props.add("body2")
    for sub in ast.walk(node):
        if isinstance(sub, (ast.For, ast.AsyncFor, ast.While)):
            props.add("loop")
        elif isinstance(sub, ast.If):
            props.add("if")
            if sub.orelse and not (len(sub.orelse) == 1 and isinstance(sub.orelse[0], ast.If)):
                props.add("if_else")
        elif isinstance(sub, (ast.Assign, ast.AugAssign)) or (
                isinstance(sub, ast.AnnAssign) and sub.value is not None):
            props.add("assign")
        elif isinstance(sub, ast.BinOp):
            props.add("binary_op")
            if isinstance(sub.left, ast.BinOp) or isinstance(sub.right, ast.BinOp):
                props.add("chain")
        elif isinstance(sub, ast.BoolOp):
            props.add("bool_op")
            if len(sub.values) > 2 or any(isinstance(v, ast.BoolOp) for v in sub.values):
                props.add("chain")
        elif isinstance(sub, ast.Compare):
            props.add("compare")
        elif isinstance(sub, ast.Constant) and type(sub.value) is int:
            props.add("constant")
        elif isinstance(sub, (ast.With, ast.AsyncWith, ast.Try)):
            props.add("wrapper")
    return props
