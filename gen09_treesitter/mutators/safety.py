"""Will the file still compile after a region is deleted? Cheap syntactic checks for the
rules that most often break removal mutants in typed languages.

- Go: a local variable or an imported package whose last read was in the region is a
  compile error ("declared and not used", "imported and not used").
- Java, TypeScript, Rust: a local declared without a value and assigned in the region may
  now be read before it is assigned ("might not have been initialized").
- Java: a ``final`` field assigned in the region is left unassigned.

The checks look at names only (no types, no scopes inside the function): they skip a few
removals that would have compiled and let through what they cannot see.
"""

from __future__ import annotations

import re

from gen09_treesitter.mutators.syntax import ancestors, named, text, walk

_GO_WRITES = {"assignment_statement": "left", "short_var_declaration": "left", "range_clause": "left"}
_VERSION = re.compile(r"(\.v\d+|/v\d+)$")


def keeps_compiling(scope, ranges) -> bool:
    """True unless deleting the byte ``ranges`` (``(start, end)`` pairs) of ``scope.data``
    breaks one of the rules above."""
    language = scope.language
    if language == "go":
        return _go_uses(scope, ranges)
    if language in ("java", "typescript", "tsx", "rust") and _assigns_uninitialized(scope, ranges):
        return False
    return language != "java" or not _assigns_final_field(scope, ranges)


def _inside(node, ranges) -> bool:
    return any(start <= node.start_byte and node.end_byte <= end for start, end in ranges)


def _is_go_read(node) -> bool:
    parent = node.parent
    if parent is None or parent.type in ("inc_statement", "dec_statement"):
        return False
    if parent.type in ("var_spec", "const_spec", "parameter_declaration"):
        return False
    grand = parent.parent
    return not (parent.type == "expression_list" and grand is not None
                and grand.child_by_field_name(_GO_WRITES.get(grand.type, "")) == parent)


def _go_reads(node, name=None):
    for n in walk(node):
        if n.type in ("identifier", "package_identifier") and (name is None or text(n) == name) \
                and _is_go_read(n):
            yield n


def _go_uses(scope, ranges) -> bool:
    fn = scope.node
    declared = set()
    for n in walk(fn):
        if _inside(n, ranges):  # declared in the region: removed with their uses
            continue
        if n.type in _GO_WRITES and n.type != "assignment_statement":
            left = n.child_by_field_name("left")
            declared |= {text(i) for i in named(left or n) if i.type == "identifier"}
        elif n.type in ("var_spec", "const_spec"):
            declared |= {text(c) for c in n.children_by_field_name("name")}
    region = [n for n in _go_reads(fn) if _inside(n, ranges)]
    names = {text(n) for n in region}
    imports = _go_imports(scope.root) if names - declared else set()
    for name in names & (declared | imports):
        where = fn if name in declared else scope.root
        if not any(not _inside(n, ranges) for n in _go_reads(where, name)):
            return False
    return True


def _go_imports(root) -> set[str]:
    found = set()
    for spec in (n for n in walk(root) if n.type == "import_spec"):
        alias = spec.child_by_field_name("name")
        path = spec.child_by_field_name("path")
        if alias is not None:
            found.add(text(alias))
        elif path is not None:
            found.add(_VERSION.sub("", text(path).strip('"`')).rsplit("/", 1)[-1])
    return found


def _uninitialized(fn) -> set[str]:
    names = set()
    for n in walk(fn):
        if n.type == "variable_declarator" and n.child_by_field_name("value") is None \
                and n.parent is not None and n.parent.type in ("local_variable_declaration",
                                                               "lexical_declaration"):
            name = n.child_by_field_name("name")
            names.add(text(name) if name is not None else "")
        elif n.type == "let_declaration" and n.child_by_field_name("value") is None:
            pattern = n.child_by_field_name("pattern")
            names.add(text(pattern) if pattern is not None else "")
    return names


def _assigned_names(scope, ranges):
    for n in walk(scope.node):
        if n.type in scope.dialect.assignments and _inside(n, ranges):
            left = n.child_by_field_name("left")
            if left is not None:
                yield left


def _assigns_uninitialized(scope, ranges) -> bool:
    names = _uninitialized(scope.node)
    return bool(names) and any(text(left) in names for left in _assigned_names(scope, ranges))


def _assigns_final_field(scope, ranges) -> bool:
    targets = set()
    for left in _assigned_names(scope, ranges):
        if left.type == "field_access" and text(left.child_by_field_name("object") or left) == "this":
            targets.add(text(left.child_by_field_name("field") or left))
        elif left.type == "identifier":
            targets.add(text(left))
    if not targets:
        return False
    body = next((a for a in ancestors(scope.node) if a.type in ("class_body", "enum_body")), None)
    fields = [c for c in (body.named_children if body is not None else ()) if c.type == "field_declaration"]
    for field in fields:
        modifiers = next((c for c in field.children if c.type == "modifiers"), None)
        names = {text(d.child_by_field_name("name")) for d in field.children_by_field_name("declarator")}
        if modifiers is not None and b"final" in modifiers.text.split() and names & targets:
            return True
    return False

