"""gen09 language pack for Lua: syntax gate, comment-aware normalizer and entity location
through the official ``tree-sitter-lua`` grammar wheel (entry point ``lua``)."""

from gen09_treesitter import LanguageSpec, TreeSitterPack


def function_name(node):
    """``function M.new()`` → ``M.new``; ``function M:area()`` → ``M.area``."""
    name = node.child_by_field_name("name")
    return name.text.decode("utf-8").replace(":", ".") if name is not None else None


LUA = LanguageSpec(
    "lua", (".lua",), "tree_sitter_lua",
    comments={"comment"},
    definitions={"function_declaration": "function"},
    names={"function_declaration": function_name},
)

pack = TreeSitterPack([LUA])
