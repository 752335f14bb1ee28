"""Operation mutators: break operator chains, change constants and operators (also in
augmented assignments), swap operands and call arguments, flip comparison and boolean
operators.

String concatenation (``"a" + x``, ``s += "b"``) is not arithmetic and is left alone, and
so are ``<<``/``>>`` where they usually write to a stream or append (C++, Ruby). Shift
operands are never swapped, nor C/C++ pointer arithmetic turned into what does not compile
(``p - q`` to ``p + q``, ``p - 1`` to ``1 - p``).
"""

from __future__ import annotations

import re

from gen09_treesitter.mutators.base import TreeMutator, fixed
from gen09_treesitter.mutators.syntax import EVERY, family, named, operator, operator_node, text, walk

STRING_LITERALS = frozenset({"string", "template_string", "string_literal", "interpreted_string_literal",
                             "raw_string_literal", "concatenated_string", "text_block"})
CHANGE = {"+": ("-",), "-": ("+",), "*": ("/", "+"), "/": ("*",), "%": ("/",), "**": ("*",),
          "<<": (">>",), ">>": ("<<",), ">>>": (">>",), "&": ("|", "^"), "|": ("&", "^"), "^": ("|", "&"),
          "&^": ("&",)}
CHANGE_AUGMENTED = {"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*=", "%=": "/=", "<<=": ">>=", ">>=": "<<=",
                    "&=": "|=", "|=": "&=", "^=": "|=", "**=": "*=", "&^=": "&="}
FLIP_COMPARE = {"==": "!=", "!=": "==", "===": "!==", "!==": "===", "<": ">=", ">=": "<", ">": "<=",
                "<=": ">", "=~": "!~", "!~": "=~"}
FLIP_BOOL = {"&&": "||", "||": "&&", "and": "or", "or": "and"}
NOT_SWAPPED = frozenset({"=~", "!~"})
SHIFTS = frozenset({"<<", ">>", ">>>"})
# parameters and local declarations (the type, when stated, is their `type` field or their parent's)
DECLARATIONS = frozenset({"parameter_declaration", "optional_parameter_declaration", "formal_parameter",
                          "parameter", "required_parameter", "optional_parameter", "variable_declarator",
                          "init_declarator", "declaration", "local_variable_declaration", "let_declaration",
                          "var_spec", "short_var_declaration"})
TEXT_TYPE = re.compile(rb"(?i)string|\bstr\b")
SHAPES = {"pointer_declarator": b"*", "reference_declarator": b"&", "array_declarator": b"[]"}
LITERALS = STRING_LITERALS | {"string_fragment", "char_literal", "character_literal", "rune_literal", "true",
                              "false", "boolean_literal"}
NOT_SWAPPED_ARGUMENTS = frozenset({"pair", "block_argument", "splat_argument", "hash_splat_argument",
                                   "variadic_argument", "keyword_argument"})


def _sides(node):
    return node.child_by_field_name("left"), node.child_by_field_name("right")


def _strings_in(node, d) -> bool:
    """True when ``node`` is a string literal or a ``+`` chain with one among its operands."""
    if node is None:
        return False
    if node.type in d.binaries and operator(node) == "+":
        return any(_strings_in(side, d) for side in _sides(node))
    return node.type in STRING_LITERALS or node.type == "parenthesized_expression" and any(
        _strings_in(c, d) for c in node.named_children)


def _declared_text(scope, node) -> bool:
    """True when ``node`` is a name that a declaration in the function gives a string type
    or a string value (``std::string ret;``, ``String s``, ``s := "x"``)."""
    if node is None or node.type != "identifier":
        return False
    for decl in scope.nodes(DECLARATIONS):
        names = [n for n in walk(decl) if n.type == "identifier" and n.text == node.text]
        if names and (TEXT_TYPE.search(decl.text) or any(n.type in STRING_LITERALS for n in walk(decl))):
            return True
    return False


def _concatenates(node, scope) -> bool:
    """True when the ``+`` chain ``node`` belongs to joins strings (``"a" + x + y``, or a
    name declared as a string)."""
    d = scope.dialect
    while node.parent is not None and node.parent.type in d.binaries and operator(node.parent) == "+":
        node = node.parent
    return _strings_in(node, d) or any(_declared_text(scope, side) for side in _sides(node))


def _stream(op: str, scope) -> bool:
    return op in ("<<", ">>") and scope.dialect.stream_shifts


def _replace_operator(node, new: str):
    token = operator_node(node)
    return fixed((token.start_byte, token.end_byte, new.encode()))


def _break_chains(scope):
    d = scope.dialect
    for node in scope.nodes(d.binaries):
        left = node.child_by_field_name("left")
        fam = family(operator(node))
        if fam in ("arith", "logical") and left is not None and left.type in d.binaries \
                and family(operator(left)) == fam and left.child_by_field_name("left") is not None:
            inner = left.child_by_field_name("left")
            yield fixed((left.start_byte, left.end_byte, scope.text(inner)))


def _constants(scope):
    d = scope.dialect
    for node in scope.nodes(d.integers):
        match = d.integer.fullmatch(text(node))
        parent = node.parent
        near = {parent.type, parent.parent.type if parent.parent is not None else ""}
        if match is None or near & d.skip_integers or parent.child_by_field_name("length") == node:
            continue  # case labels, array types and lengths, tuple indices, template arguments

        def site(rng, node=node, match=match):
            digits = match.group(1)
            value = int(digits) * (-1 if match.group(0).startswith("-") else 1)
            delta = 1 if value == 0 or rng.random() < 0.5 else -1
            suffix = match.group(0)[match.end(1):]
            return [(node.start_byte, node.end_byte, (str(value + delta) + suffix).encode())]

        yield site


def _operators(scope):
    for node in scope.nodes(scope.dialect.binaries):
        op = operator(node)
        options = CHANGE.get(op)
        if options and not _stream(op, scope) and not (op == "+" and _concatenates(node, scope)) \
                and not _pointer_arithmetic(scope, node):
            token = operator_node(node)
            yield lambda rng, t=token, o=options: [(t.start_byte, t.end_byte, rng.choice(o).encode())]


def _augmented(scope):
    for node in scope.nodes(scope.dialect.assignments):
        new = CHANGE_AUGMENTED.get(operator(node))
        right = node.child_by_field_name("right")
        if new and not (new == "-=" and (_strings_in(right, scope.dialect)
                                         or _declared_text(scope, node.child_by_field_name("left")))):
            yield _replace_operator(node, new)


def _pointer_arithmetic(scope, node) -> bool:
    """C/C++: ``+``/``-`` with an address-of operand or a name declared as a pointer or
    array (``p + q`` and ``1 - p`` do not compile)."""
    if scope.language not in ("c", "cpp") or operator(node) not in ("+", "-"):
        return False
    for side in _sides(node):
        kind = declared_type(scope, side.text) if side is not None and side.type == "identifier" else None
        if side is not None and side.type == "pointer_expression" and operator(side) == "&" \
                or kind is not None and (b"*" in kind or b"[]" in kind):
            return True
    return False


def _swappable(scope, node, left, right) -> bool:
    """Operands that may trade places: an arithmetic or comparison operator other than a
    shift or ``=~``, different operands, no pointer arithmetic (nor C's ``p - 1``), no
    Rust ``String + &str``."""
    op, c_like = operator(node), scope.language in ("c", "cpp")
    if family(op) not in ("arith", "compare") or op in NOT_SWAPPED or op in SHIFTS or left is None \
            or right is None or scope.text(left) == scope.text(right) or _pointer_arithmetic(scope, node):
        return False
    if c_like and op == "-" and scope.dialect.integers & {left.type, right.type}:
        return False
    return not (scope.language == "rust" and op == "+" and _concatenates(node, scope))


def _swap(scope):
    for node in scope.nodes(scope.dialect.binaries):
        left, right = _sides(node)
        if _swappable(scope, node, left, right):
            middle = scope.data[left.end_byte:right.start_byte]
            yield fixed((node.start_byte, node.end_byte, scope.text(right) + middle + scope.text(left)))


def _flip(table):
    def finder(scope):
        for node in scope.nodes(scope.dialect.binaries):
            op = operator(node)
            new = table.get(op)
            if new and not (op == "===" and scope.language == "ruby"):  # Ruby's case equality has no negation
                yield _replace_operator(node, new)
    return finder


def declared_type(scope, name: bytes) -> bytes | None:
    """The type a parameter or local declaration of the function gives ``name`` (with its
    ``*``/``&``/``[]`` in C and C++), or None when no declaration states one."""
    for node in scope.nodes(DECLARATIONS):
        kind = node.child_by_field_name("type") or (node.parent and node.parent.child_by_field_name("type"))
        for field in ("name", "pattern", "declarator") if kind is not None else ():
            for target in node.children_by_field_name(field):
                shape = b""
                while target is not None and target.type.endswith("declarator"):
                    shape += SHAPES.get(target.type, b"")
                    target = target.child_by_field_name("declarator") or next(iter(named(target)), None)
                if target is not None and target.type == "identifier" and target.text == name:
                    return kind.text + shape
    return None


def _same_kind(scope, a, b) -> bool:
    """Arguments that may trade places: same node type, and in a typed language two
    literals or two names declared with the same type."""
    if a.type != b.type or a.type in NOT_SWAPPED_ARGUMENTS or scope.text(a) == scope.text(b):
        return False
    if not scope.dialect.typed or a.type in LITERALS or a.type in scope.dialect.integers:
        return True
    return a.type == "identifier" and declared_type(scope, a.text) == declared_type(scope, b.text) is not None


def _arguments(scope):
    for call in scope.nodes(scope.dialect.calls):
        args = call.child_by_field_name("arguments")
        items = named(args) if args is not None else []
        pairs = [(a, b) for a, b in zip(items, items[1:], strict=False) if _same_kind(scope, a, b)]
        if pairs:
            def site(rng, pairs=pairs):
                a, b = rng.choice(pairs)
                return [(a.start_byte, a.end_byte, scope.text(b)), (b.start_byte, b.end_byte, scope.text(a))]

            yield site


BREAK_CHAINS = TreeMutator(
    name="op_break_chains",
    description="Drop the middle operand of a chained binary or boolean operation.",
    languages=EVERY, conditions=("chain",), min_complexity=1, likelihood=0.4, finder=_break_chains,
)

CHANGE_CONSTANTS = TreeMutator(
    name="op_change_const",
    description="Shift an integer constant by one.",
    languages=EVERY, conditions=("constant",), min_complexity=1, likelihood=0.4, finder=_constants,
)

CHANGE_OPERATOR = TreeMutator(
    name="op_change",
    description="Replace an arithmetic or bitwise operator by a related one.",
    languages=EVERY, conditions=("binary_op",), min_complexity=1, likelihood=0.4, finder=_operators,
)

CHANGE_AUGMENTED_OPERATOR = TreeMutator(
    name="op_change_aug",
    description="Swap an augmented assignment for its counterpart (+= to -=, *= to /=, ...).",
    languages=EVERY, conditions=("aug_assign",), min_complexity=1, likelihood=0.4, finder=_augmented,
)

SWAP_OPERANDS = TreeMutator(
    name="op_swap",
    description="Swap the operands of a binary operation or comparison.",
    languages=EVERY, conditions=("operands",), min_complexity=1, likelihood=0.4, finder=_swap,
)

FLIP_COMPARISON = TreeMutator(
    name="op_flip_compare",
    description="Negate a comparison operator (== to !=, < to >=, ...).",
    languages=EVERY, conditions=("compare",), min_complexity=1, likelihood=0.4, finder=_flip(FLIP_COMPARE),
)

FLIP_BOOLEAN = TreeMutator(
    name="op_flip_bool",
    description="Flip a boolean operator (&& to ||, and to or, and back).",
    languages=EVERY, conditions=("bool_op",), min_complexity=2, likelihood=0.4, finder=_flip(FLIP_BOOL),
)

SWAP_ARGUMENTS = TreeMutator(
    name="call_swap_args",
    description="Swap two adjacent arguments of one kind (typed languages: two literals, or two names "
                "declared with one type).",
    languages=EVERY, conditions=("call_args2",), min_complexity=1, likelihood=0.25, finder=_arguments,
)
