"""gen09's tree-sitter language pack, and the kit for writing your own.

A language served through tree-sitter is one ``LanguageSpec``: its name, file extensions,
grammar wheel, comment node types and definition node types. A ``TreeSitterPack`` over a
list of specs implements the syntax gate (``gen09_parse``), the comment-aware normalizer
(``gen09_normalize``) and entity location (``gen09_entities``). To publish a pack::

    # gen09_lua/__init__.py
    from gen09_treesitter import LanguageSpec, TreeSitterPack

    pack = TreeSitterPack([LanguageSpec(
        "lua", (".lua",), "tree_sitter_lua", comments={"comment"},
        definitions={"function_declaration": "function"},
    )])

    # pyproject.toml
    [project.entry-points.gen09]
    lua = "gen09_lua:pack"

``pip install`` it and ``gen09 plugins`` lists it. The built-in languages are in
``gen09_treesitter.languages``.
"""

from gen09_treesitter.plugin import TreeSitterPack
from gen09_treesitter.spec import LanguageSpec

__all__ = ["LanguageSpec", "TreeSitterPack"]
