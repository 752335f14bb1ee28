"""Test and vendored code, by each ecosystem's own conventions.

``gen09 mutate`` plants bugs only in a repository's own source code. The tree-sitter
mutators ask this module: ``TreeMutator.features`` returns None (not eligible) for an
entity of a file that ``excluded`` names, or one that ``in_test_code`` finds inside a test
module, so the language-agnostic generate stage (``gen09_core.mutate.mutants``) needs no
list of its own. The recipe's ``include``/``exclude`` globs and the test files its baseline
ran still apply on top.

Excluded everywhere: any path under ``test/`` or ``tests/`` (tests), ``vendor/``,
``node_modules/``, ``third_party/`` or ``third-party/`` (vendored code). Per language:

- Go: ``*_test.go``, ``testdata/``, and files marked ``// Code generated ... DO NOT EDIT.``
  near their top
- Rust: ``benches/``, and (by ``in_test_code``) items under ``#[cfg(test)]``,
  ``#[test]`` functions and files starting with ``#![cfg(test)]``
- JavaScript, TypeScript, TSX: ``*.test.*``, ``*.spec.*``, ``*.test-d.*`` (tsd), ``test.*``,
  ``tests.*``, ``test-*`` (ava's and tape's defaults), ``__tests__/``, ``__mocks__/``,
  ``spec/``, ``bower_components/``, minified ``*.min.js``
- Java: ``src/test/`` (a ``test/`` folder), and Surefire's test class names ``Test*.java``,
  ``*Test.java``, ``*Tests.java``, ``*TestCase.java``
- C, C++: ``unittests/``, ``test_*``, ``*_test.*``, ``*_tests.*``,
  ``*_unittest.*``; ``external/`` and ``deps/`` (vendored libraries)
- Ruby: ``spec/``, ``*_spec.rb``, ``*_test.rb``, ``test_*.rb``
"""

from __future__ import annotations

import fnmatch
import re
from pathlib import PurePosixPath

VENDORED = frozenset({"vendor", "node_modules", "third_party", "third-party"})
TESTS = frozenset({"test", "tests"})
# ``test.js`` and ``test-*.js``: ava's and tape's default test files (sindresorhus/camelcase's
# root ``test.js`` was mutated); ``*.test-d.ts``: tsd's type tests
_JS = (frozenset({"__tests__", "__mocks__", "spec", "bower_components"}),
       ("*.test.*", "*.spec.*", "*.test-d.*", "test.*", "tests.*", "test-*", "*.min.js"))
_C = (frozenset({"unittests", "external", "deps"}),
      ("test_*", "*_test.*", "*_tests.*", "*_unittest.*"))
# language -> (folder names, file name globs)
RULES: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "go": (frozenset({"testdata"}), ("*_test.go",)),
    "rust": (frozenset({"benches"}), ()),
    "javascript": _JS,
    "typescript": _JS,
    "tsx": _JS,
    "java": (frozenset(), ("Test*.java", "*Test.java", "*Tests.java", "*TestCase.java")),
    "c": _C,
    "cpp": _C,
    "ruby": (frozenset({"spec"}), ("*_spec.rb", "*_test.rb", "test_*.rb")),
}
_HEAD = 4096  # file-level markers stand before the code
_GO_GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$", re.M)
_RUST_TEST_FILE = re.compile(r"^#!\[\s*cfg\s*\(\s*test\s*\)\s*\]", re.M)
_RUST_TEST = re.compile(rb"^#\[\s*(cfg\s*\(\s*test\s*\)|test|bench|(\w+::)+test)\s*\]")


def excluded(language: str, path: str, text: str = "") -> bool:
    """True when ``path`` (repo-relative) is test or vendored code of ``language``, or, for
    Go, ``text`` says it is generated."""
    parts = PurePosixPath(path).parts
    folders, names = RULES.get(language, (frozenset(), ()))
    if any(p in VENDORED or p in TESTS or p in folders for p in parts[:-1]):
        return True
    if any(fnmatch.fnmatchcase(parts[-1], g) for g in names):
        return True
    marker = {"go": _GO_GENERATED, "rust": _RUST_TEST_FILE}.get(language)
    return marker is not None and bool(marker.search(text[:_HEAD]))


def in_test_code(language: str, node) -> bool:
    """True when a definition ``node`` is test-only code inside a source file (Rust items
    marked ``#[cfg(test)]``, ``#[test]`` or ``#[bench]``, or nested in such an item)."""
    if language != "rust":
        return False
    while node is not None:
        sibling = node.prev_named_sibling
        while sibling is not None and sibling.type in ("attribute_item", "line_comment", "block_comment"):
            if sibling.type == "attribute_item" and _RUST_TEST.match(sibling.text):
                return True
            sibling = sibling.prev_named_sibling
        node = node.parent
    return False
