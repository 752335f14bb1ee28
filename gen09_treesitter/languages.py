"""The built-in languages: one ``LanguageSpec`` each, and the few name readers that differ
from the default (a definition's ``name`` field)."""

from __future__ import annotations

from gen09_treesitter.spec import LanguageSpec


def text(node) -> str:
    """The source text of ``node`` with ``::`` scope separators written as ``.``."""
    return node.text.decode("utf-8", "replace").replace("::", ".")


def base_type(node) -> str | None:
    """The bare type name inside a type expression: ``&'a mut Vec<T>`` → ``Vec``,
    ``*Server`` → ``Server``, ``std::vec::Vec<T>`` → ``Vec``."""
    while node is not None and node.type not in {"type_identifier", "identifier", "constant"}:
        inner = node.child_by_field_name("type") or node.child_by_field_name("name")
        node = inner or next((c for c in node.named_children if c.type != "lifetime"), None)
    return text(node) if node is not None else None


def c_declarator(node) -> str | None:
    """A C/C++ function's name, found by following its ``declarator`` chain
    (pointer, reference and function declarators) down to the identifier."""
    node = node.child_by_field_name("declarator")
    while node is not None and node.type.endswith("declarator"):
        node = node.child_by_field_name("declarator") or (
            node.named_children[-1] if node.named_children else None)
    return text(node) if node is not None else None


def with_body(node) -> str | None:
    """The name of a struct/class/union specifier that has a body (``struct S x;`` only
    refers to ``S`` and defines nothing)."""
    name = node.child_by_field_name("name")
    return text(name) if name is not None and node.child_by_field_name("body") else None


def go_method(node) -> str | None:
    """``func (s *Server) Handle()`` → ``Server.Handle``."""
    receiver = node.child_by_field_name("receiver")
    params = [c for c in receiver.named_children if c.type == "parameter_declaration"] if receiver else []
    owner = base_type(params[0].child_by_field_name("type")) if params else None
    name = text(node.child_by_field_name("name"))
    return f"{owner}.{name}" if owner else name


def rust_impl(node) -> str | None:
    """``impl<T> Display for Point<T>`` → ``Point`` (the scope its methods belong to)."""
    return base_type(node.child_by_field_name("type"))


_JS_FUNCTIONS = {"arrow_function", "function_expression", "function", "generator_function"}
# the field of a definition by assignment that holds its function (``const f = …``, ``module.exports = …``)
FUNCTION_FIELD = {"variable_declarator": "value", "assignment_expression": "right"}


def _named_function(node, name: str) -> str | None:
    """The text of ``node``'s field ``name`` when its ``FUNCTION_FIELD`` is a function, else None."""
    found = node.child_by_field_name(FUNCTION_FIELD[node.type])
    return text(node.child_by_field_name(name)) if found is not None and found.type in _JS_FUNCTIONS else None


def js_function_value(node) -> str | None:
    """``const f = (x) => ...`` and ``const f = function () {}`` define function ``f``."""
    return _named_function(node, "name")


def js_assigned_function(node) -> str | None:
    """``module.exports = function (num) {…}``, ``Foo.prototype.bar = function () {…}`` and
    ``exports.trim = (s) => …`` define the function named by what they assign to (CommonJS's
    way: jonschlinkert/is-number's only code made no mutant)."""
    return _named_function(node, "left")


_JS_DEFS = {
    "function_declaration": "function", "generator_function_declaration": "function",
    "class_declaration": "class", "class": "class", "method_definition": "function",
    "variable_declarator": "function", "assignment_expression": "function",
}
_TS_DEFS = {
    **_JS_DEFS, "abstract_class_declaration": "class", "interface_declaration": "interface",
    "enum_declaration": "enum", "type_alias_declaration": "type", "internal_module": "namespace",
    "module": "namespace", "method_signature": "function", "abstract_method_signature": "function",
}
_JS_NAMES = {"variable_declarator": js_function_value, "assignment_expression": js_assigned_function}
_C_NAMES = {"function_definition": c_declarator, "struct_specifier": with_body,
            "union_specifier": with_body, "enum_specifier": with_body}

LANGUAGES = (
    LanguageSpec(
        "javascript", (".js", ".mjs", ".cjs", ".jsx"), "tree_sitter_javascript",
        comments={"comment", "html_comment"}, definitions=_JS_DEFS, names=_JS_NAMES,
    ),
    LanguageSpec(
        "typescript", (".ts", ".mts", ".cts"), "tree_sitter_typescript:language_typescript",
        comments={"comment", "html_comment"}, definitions=_TS_DEFS, names=_JS_NAMES,
    ),
    LanguageSpec(
        "tsx", (".tsx",), "tree_sitter_typescript:language_tsx",
        comments={"comment", "html_comment"}, definitions=_TS_DEFS, names=_JS_NAMES,
    ),
    LanguageSpec(
        "go", (".go",), "tree_sitter_go", comments={"comment"},
        definitions={"function_declaration": "function", "method_declaration": "method",
                     "type_spec": "type"},
        names={"method_declaration": go_method},
    ),
    LanguageSpec(
        "rust", (".rs",), "tree_sitter_rust", comments={"line_comment", "block_comment"},
        definitions={"function_item": "function", "function_signature_item": "function",
                     "struct_item": "struct", "enum_item": "enum", "union_item": "struct",
                     "trait_item": "trait", "impl_item": "", "mod_item": "module"},
        names={"impl_item": rust_impl},
    ),
    LanguageSpec(
        "java", (".java",), "tree_sitter_java", comments={"line_comment", "block_comment"},
        definitions={"class_declaration": "class", "interface_declaration": "interface",
                     "enum_declaration": "enum", "record_declaration": "class",
                     "annotation_type_declaration": "interface",
                     "method_declaration": "function", "constructor_declaration": "function"},
    ),
    LanguageSpec(
        "c", (".c", ".h"), "tree_sitter_c", comments={"comment"},
        definitions={"function_definition": "function", "struct_specifier": "struct",
                     "union_specifier": "struct", "enum_specifier": "enum"},
        names=_C_NAMES, fallback={".h": "cpp"},
    ),
    LanguageSpec(
        "cpp", (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".ipp"), "tree_sitter_cpp",
        comments={"comment"},
        definitions={"function_definition": "function", "struct_specifier": "struct",
                     "class_specifier": "class", "union_specifier": "struct",
                     "enum_specifier": "enum", "namespace_definition": "namespace"},
        names={**_C_NAMES, "class_specifier": with_body},
    ),
    LanguageSpec(
        "ruby", (".rb", ".rake", ".gemspec"), "tree_sitter_ruby", comments={"comment"},
        definitions={"class": "class", "module": "module", "method": "function",
                     "singleton_method": "function"},
    ),
)
