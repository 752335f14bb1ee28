"""What each grammar calls the constructs the mutators rewrite, and small node helpers.

A ``Dialect`` maps roles (an ``if``, a loop, a statement list, an integer literal, ...) to
one grammar's node types. The mutators are written once against roles; a language gets
them by having a dialect. Every helper works on ``tree_sitter.Node`` objects and never
imports tree-sitter itself.
"""

from __future__ import annotations

import functools
import re

from attrs import evolve, field, frozen

ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "**", "<<", ">>", ">>>", "&", "|", "^", "&^"})
COMPARISON = frozenset({"==", "!=", "===", "!==", "<", "<=", ">", ">=", "=~", "!~"})
LOGICAL = frozenset({"&&", "||", "and", "or"})
RELATIONAL = frozenset({"<", "<=", ">", ">="})


def _types(*names: str) -> frozenset[str]:
    return frozenset(names)


@frozen
class Dialect:
    """The node types one grammar uses for each role (see the module docstring).

    ``blocks`` hold statements as named children; ``wrappers`` turn an expression into a
    statement (``expression_statement``); ``clauses`` are named children of a block that
    are not statements (Ruby's ``rescue``/``ensure``). ``elses`` wrap a plain else branch
    (empty when the alternative is the statement itself, as in Java and Go);
    ``inner_branches``: a branch's statements are its named children, keywords around them
    (Ruby ``then``/``else``). ``integer`` matches the literals ``op_change_const`` may
    shift (decimal, with the language's suffixes). ``value_tail``: the last expression of a
    block without ``;`` is the block's value (Rust), so it is never removed or moved.
    ``typed``: the compiler checks argument types (so only arguments of a known equal type
    trade places).
    """

    blocks: frozenset[str]
    ifs: frozenset[str]
    loops: frozenset[str]
    integers: frozenset[str]
    integer: re.Pattern = field(converter=re.compile)
    wrappers: frozenset[str] = _types("expression_statement")
    clauses: frozenset[str] = frozenset()
    elses: frozenset[str] = _types("else_clause")
    inner_branches: bool = False
    binaries: frozenset[str] = _types("binary_expression")
    unaries: frozenset[str] = _types("unary_expression")
    assignments: frozenset[str] = _types("assignment_expression")
    ternaries: frozenset[str] = frozenset()
    calls: frozenset[str] = _types("call_expression")
    strings: frozenset[str] = _types("string_content", "string_fragment")
    booleans: frozenset[str] = _types("true", "false")
    nulls: frozenset[str] = frozenset()
    trys: frozenset[str] = frozenset()
    declarations: frozenset[str] = frozenset()
    jumps: frozenset[str] = frozenset()
    breaks: frozenset[str] = _types("break_statement")
    continues: frozenset[str] = _types("continue_statement")
    switches: frozenset[str] = frozenset()  # breakable constructs that are not loops
    decisions: frozenset[str] = frozenset()  # case arms, catch clauses: complexity only
    skip_integers: frozenset[str] = frozenset()  # parents under which a literal never changes
    stream_shifts: bool = False  # ``<<``/``>>`` are usually stream or append operators
    value_tail: bool = False
    typed: bool = True


_C_JUMPS = _types("return_statement", "break_statement", "continue_statement", "goto_statement")
_JS = Dialect(
    blocks=_types("statement_block"),
    ifs=_types("if_statement"),
    loops=_types("for_statement", "for_in_statement", "while_statement", "do_statement"),
    integers=_types("number"),
    integer=r"-?(0|[1-9][0-9]*)n?",
    ternaries=_types("ternary_expression"),
    calls=_types("call_expression", "new_expression"),
    assignments=_types("assignment_expression", "augmented_assignment_expression"),
    nulls=_types("null", "undefined"),
    trys=_types("try_statement"),
    declarations=_types("lexical_declaration", "variable_declaration", "function_declaration",
                        "generator_function_declaration", "class_declaration", "import_statement"),
    jumps=_types("return_statement", "throw_statement", "break_statement", "continue_statement"),
    switches=_types("switch_statement"),
    decisions=_types("switch_case", "catch_clause"),
    skip_integers=_types("switch_case"),
    typed=False,
)
_TS = evolve(_JS, declarations=_JS.declarations | _types(
    "type_alias_declaration", "interface_declaration", "enum_declaration", "abstract_class_declaration"),
    skip_integers=_types("switch_case", "literal_type"), typed=True)
_C = Dialect(
    blocks=_types("compound_statement"),
    ifs=_types("if_statement"),
    loops=_types("for_statement", "while_statement", "do_statement"),
    integers=_types("number_literal"),
    integer=r"-?(0|[1-9][0-9]*)[uUlLzZ]{0,3}",
    ternaries=_types("conditional_expression"),
    nulls=_types("null"),
    declarations=_types("declaration", "type_definition", "struct_specifier", "union_specifier",
                        "enum_specifier"),
    jumps=_C_JUMPS,
    switches=_types("switch_statement"),
    decisions=_types("case_statement"),
    skip_integers=_types("case_statement"),
)
_CPP = evolve(
    _C, loops=_C.loops | _types("for_range_loop"), trys=_types("try_statement"),
    declarations=_C.declarations | _types("alias_declaration", "using_declaration",
                                          "static_assert_declaration", "class_specifier"),
    jumps=_C_JUMPS | _types("co_return_statement"), decisions=_types("case_statement", "catch_clause"),
    skip_integers=_types("case_statement", "template_argument_list"), stream_shifts=True,
)

DIALECTS: dict[str, Dialect] = {
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": Dialect(
        blocks=_types("statement_list"),
        ifs=_types("if_statement"),
        loops=_types("for_statement"),
        integers=_types("int_literal"),
        integer=r"-?(0|[1-9][0-9]*)",
        elses=frozenset(),
        assignments=_types("assignment_statement"),
        strings=_types("interpreted_string_literal_content"),
        nulls=_types("nil"),
        declarations=_types("short_var_declaration", "var_declaration", "const_declaration",
                            "type_declaration"),
        jumps=_types("return_statement", "break_statement", "continue_statement", "goto_statement",
                     "fallthrough_statement"),
        switches=_types("expression_switch_statement", "type_switch_statement", "select_statement"),
        decisions=_types("expression_case", "type_case", "communication_case"),
        skip_integers=_types("expression_case", "array_type"),
    ),
    "rust": Dialect(
        blocks=_types("block"),
        ifs=_types("if_expression"),
        loops=_types("for_expression", "while_expression", "loop_expression"),
        integers=_types("integer_literal"),
        integer=r"-?(0|[1-9][0-9]*)([iu](8|16|32|64|128|size))?",
        assignments=_types("assignment_expression", "compound_assignment_expr"),
        strings=_types("string_content"),
        booleans=_types("boolean_literal"),
        declarations=_types("let_declaration", "use_declaration", "function_item", "struct_item",
                            "enum_item", "const_item", "static_item", "macro_definition"),
        jumps=_types("return_expression", "break_expression", "continue_expression"),
        breaks=_types("break_expression"),
        continues=_types("continue_expression"),
        decisions=_types("match_arm"),
        skip_integers=_types("array_type", "field_expression", "type_arguments", "match_pattern",
                             "token_tree"),  # a macro's arguments are tokens: `self.0` is no literal
        value_tail=True,
    ),
    "java": Dialect(
        blocks=_types("block", "constructor_body"),
        ifs=_types("if_statement"),
        loops=_types("for_statement", "enhanced_for_statement", "while_statement", "do_statement"),
        integers=_types("decimal_integer_literal"),
        integer=r"-?(0|[1-9][0-9]*)[lL]?",
        elses=frozenset(),
        ternaries=_types("ternary_expression"),
        calls=_types("method_invocation", "object_creation_expression"),
        strings=_types("string_fragment"),
        nulls=_types("null_literal"),
        trys=_types("try_statement"),
        declarations=_types("local_variable_declaration", "local_class_declaration",
                            "explicit_constructor_invocation"),
        jumps=_types("return_statement", "throw_statement", "break_statement", "continue_statement",
                     "yield_statement"),
        switches=_types("switch_expression", "switch_statement"),
        decisions=_types("switch_label", "catch_clause"),
        skip_integers=_types("switch_label"),
    ),
    "c": _C,
    "cpp": _CPP,
    "ruby": Dialect(
        blocks=_types("body_statement", "then", "else", "do", "begin", "block_body"),
        ifs=_types("if", "unless"),
        loops=_types("while", "until", "for"),
        integers=_types("integer"),
        integer=r"-?(0|[1-9][0-9]*)",
        wrappers=frozenset(),
        clauses=_types("rescue", "else", "ensure"),
        elses=_types("else"),
        inner_branches=True,
        binaries=_types("binary"),
        unaries=_types("unary"),
        assignments=_types("assignment", "operator_assignment"),
        ternaries=_types("conditional"),
        calls=_types("call"),
        strings=_types("string_content"),
        nulls=_types("nil"),
        declarations=_types("assignment"),
        jumps=_types("return", "break", "next", "redo", "retry"),
        breaks=_types("break"),
        continues=_types("next"),
        decisions=_types("when", "elsif", "rescue", "if_modifier", "unless_modifier", "while_modifier",
                         "until_modifier"),
        skip_integers=_types("pattern"),
        stream_shifts=True,
        typed=False,
    ),
}


EVERY = tuple(DIALECTS)
WITH_TERNARY = tuple(name for name, d in DIALECTS.items() if d.ternaries)


# -- node helpers -------------------------------------------------------------------------

def text(node) -> str:
    """The node's source text."""
    return node.text.decode("utf-8", "replace")


def operator(node) -> str | None:
    """The operator token of a binary, unary or assignment node (``+``, ``&&``, ``+=``)."""
    op = node.child_by_field_name("operator")
    if op is None and node.child_count > 1 and not node.children[0].is_named:
        op = node.children[0]  # Rust's unary expressions have no operator field
    return text(op) if op is not None else None


def operator_node(node):
    """The operator token node of a binary or assignment node."""
    return node.child_by_field_name("operator")


def family(op: str | None) -> str | None:
    """``"arith"``, ``"compare"`` or ``"logical"`` for a binary operator, else None."""
    if op in ARITHMETIC:
        return "arith"
    if op in COMPARISON:
        return "compare"
    if op in LOGICAL:
        return "logical"
    return None


def is_comment(node) -> bool:
    """True for a comment node (every grammar here names them ``*comment``)."""
    return node.type.endswith("comment")


def named(node) -> list:
    """The named children of ``node`` that are not comments."""
    return [c for c in node.named_children if not is_comment(c)]


def strip_parens(node):
    """The expression inside any ``( ... )`` / condition wrappers."""
    while node is not None and node.type in ("parenthesized_expression", "condition_clause") \
            and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def is_statement(node, d: Dialect) -> bool:
    """True when ``node`` is directly one statement of a block."""
    return node.parent is not None and node.parent.type in d.blocks and node.type not in d.clauses


def statement_of(node, d: Dialect):
    """The statement that consists of ``node`` (``node`` or its ``expression_statement``),
    or None when ``node`` is not in statement position."""
    if node.parent is not None and node.parent.type in d.wrappers:
        node = node.parent
    return node if is_statement(node, d) else None


def core(statement, d: Dialect):
    """The expression a wrapper statement holds (the statement itself otherwise)."""
    if statement.type in d.wrappers and statement.named_child_count:
        return statement.named_children[0]
    return statement


def is_value_tail(statement, d: Dialect) -> bool:
    """True for the value of a block (Rust: its last expression without ``;``), unless the
    expression has no value: a ``for``/``while`` loop or an ``if`` without ``else``."""
    if not d.value_tail or statement.text.endswith(b";"):
        return False
    siblings = named(statement.parent)
    if not siblings or siblings[-1] != statement:
        return False
    inner = core(statement, d)
    if inner.type in ("for_expression", "while_expression"):
        return False
    return not (inner.type in d.ifs and inner.child_by_field_name("alternative") is None)


def else_branch(if_node, d: Dialect):
    """The statement of a plain ``else`` (not an ``else if``/``elsif``), or None."""
    alt = if_node.child_by_field_name("alternative")
    if alt is None:
        return None
    if d.elses:
        if alt.type not in d.elses:
            return None
        if d.inner_branches:
            return alt
        inner = named(alt)
        alt = inner[0] if len(inner) == 1 else None
    if alt is None or alt.type in d.ifs:
        return None
    return alt


def branch_range(node, d: Dialect) -> tuple[int, int] | None:
    """The byte range of a branch's code: the whole node, or for ``inner_branches``
    languages the span of its named children (None when it has none)."""
    if not d.inner_branches:
        return node.start_byte, node.end_byte
    inner = node.named_children
    return (inner[0].start_byte, inner[-1].end_byte) if inner else None


def function_body(node, d: Dialect):
    """The statement list of a function node (its ``body``, or the block inside it), or None."""
    if node.type == "variable_declarator":  # const f = () => {...}
        node = node.child_by_field_name("value")
        if node is None:
            return None
    body = node.child_by_field_name("body")
    while body is not None and body.type not in d.blocks:
        body = next((c for c in body.named_children if c.type in d.blocks), None)
    return body


def has_heredoc(node) -> bool:
    """True when ``node`` starts a heredoc: its body lies outside the node's range, so the
    node can be neither moved nor deleted on its own (Ruby)."""
    return b"<<" in node.text and any(n.type == "heredoc_beginning" for n in walk(node))


def walk(node):
    """``node`` and every node below it, in document order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def ancestors(node, stop=None):
    """The parents of ``node`` up to (excluding) ``stop``."""
    node = node.parent
    while node is not None and node != stop:
        yield node
        node = node.parent


class Scope:
    """What a site finder sees: the entity's ``node`` in the parsed file, the file's
    ``data`` (UTF-8 bytes), the language's ``dialect`` and the function's ``statements``."""

    def __init__(self, language: str, dialect: Dialect, data: bytes, node):
        """Describe ``node`` of ``data``."""
        self.language = language
        self.dialect = dialect
        self.data = data
        self.node = node
        self.body = function_body(node, dialect)
        self.statements = [] if self.body is None else [
            s for s in named(self.body) if s.type not in dialect.clauses]

    def text(self, node) -> bytes:
        """The bytes of ``node``."""
        return self.data[node.start_byte:node.end_byte]

    def nodes(self, types) -> list:
        """Every named node of the entity whose type is in ``types``, in document order
        (not the keyword tokens that share a name with a node type, as Ruby's ``if``)."""
        return [n for n in walk(self.node) if n.type in types and n.is_named]

    @functools.cached_property
    def root(self):
        """The file's root node."""
        node = self.node
        while node.parent is not None:
            node = node.parent
        return node
