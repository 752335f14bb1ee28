"""The built-in tree-sitter pack (entry point ``treesitter``): JavaScript, TypeScript, TSX,
Go, Rust, Java, C, C++ and Ruby through their official grammar wheels.

The hooks are those of one ``TreeSitterPack`` over ``languages.LANGUAGES``; each grammar
wheel is imported only when a file of its language is first parsed.
"""

from __future__ import annotations

from gen09_treesitter.languages import LANGUAGES
from gen09_treesitter.plugin import TreeSitterPack

PACK = TreeSitterPack(LANGUAGES)

gen09_languages = PACK.gen09_languages
gen09_parse = PACK.gen09_parse
gen09_normalize = PACK.gen09_normalize
gen09_entities = PACK.gen09_entities
gen09_mutators = PACK.gen09_mutators
