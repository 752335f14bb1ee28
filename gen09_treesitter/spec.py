"""How a language is described to the generic tree-sitter pack: one frozen record each."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

from attrs import field, frozen

# A name reader gets a definition node and returns its in-file name ("Server.Handle"),
# or None when the node defines nothing nameable (then it is skipped but still searched).
NameReader = Callable[[object], "str | None"]


@frozen
class LanguageSpec:
    """One language served through a tree-sitter grammar wheel.

    ``grammar`` names the wheel's module and, after a colon, its language function
    (default ``language``): ``"tree_sitter_go"``, ``"tree_sitter_typescript:language_tsx"``.
    ``comments`` are the node types the normalizer removes. ``definitions`` maps entity
    node types to their kind (``"function"``, ``"class"``, ...; a ``"function"`` inside a
    type-like definition becomes a ``"method"``; an empty kind is a scope that qualifies
    the names inside it without being an entity itself). ``names`` overrides how the
    name of a node type is read (default: its ``name`` field, ``::`` written as ``.``).
    ``fallback`` maps a file extension to another spec's name whose grammar is tried when
    this one finds syntax errors in such a file (``.h`` headers that are really C++).
    """

    name: str
    extensions: tuple[str, ...]
    grammar: str
    comments: frozenset[str] = field(converter=frozenset)
    definitions: Mapping[str, str] = field(factory=dict)
    names: Mapping[str, NameReader] = field(factory=dict)
    fallback: Mapping[str, str] = field(factory=dict)

    def load(self):
        """The ``tree_sitter.Language`` of this spec, importing its grammar wheel now."""
        from tree_sitter import Language

        module, _, function = self.grammar.partition(":")
        return Language(getattr(importlib.import_module(module), function or "language")())
