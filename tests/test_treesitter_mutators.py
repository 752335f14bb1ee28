"""The tree-sitter mutators as codemods: before/after pairs for every modifier in every
language it serves, conditions that gate them, features, determinism, test-code exclusion.

The pairs are in ``fixtures/mutator_pairs/<language>.txt``: real functions from the pinned
packages the benchmarks use (each block names its source file), mutated with seed 0.
TSX runs its own pairs and every TypeScript pair (TSX is TypeScript plus JSX).
"""

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gen09_core.models import Entity, Span
from gen09_treesitter import LanguageSpec, TreeSitterPack, conventions
from gen09_treesitter.languages import LANGUAGES
from gen09_treesitter.mutators import MUTATORS, by_name, for_grammar
from gen09_treesitter.mutators.base import Features
from gen09_treesitter.pack import PACK

PAIRS_DIR = Path(__file__).parent / "fixtures" / "mutator_pairs"
EXTENSION = {spec.name: spec.extensions[0] for spec in LANGUAGES}
SOURCES = {"tsx": ("tsx", "typescript")}
BLOCK = re.compile(r"^=== (\w+): (.*)\n", re.M)


def read_pairs(language):
    """``(modifier, origin, before, after)`` of one pairs file."""
    text = (PAIRS_DIR / f"{language}.txt").read_text(encoding="utf-8")
    heads = list(BLOCK.finditer(text))
    out = []
    for head, following in zip(heads, heads[1:] + [None], strict=True):
        body = text[head.end():following.start() if following else len(text)]
        before, after = body.split("--- after\n")
        out.append((head[1], head[2], before, after))
    return out


PAIRS = [(language, *pair) for language in EXTENSION for source in SOURCES.get(language, (language,))
         for pair in read_pairs(source)]


def path_for(language):
    return "src/m" + EXTENSION[language]


def mutator(language, name):
    found = [m for m in for_grammar(PACK.grammars[language]) if m.name == name]
    assert found, f"{name} does not serve {language}"
    return found[0]


def function(language, text):
    entities = PACK.gen09_entities(language=language, path=path_for(language), text=text)
    return next(e for e in entities if e.kind in ("function", "method"))


def mutate(language, name, text, seed=0):
    m, entity = mutator(language, name), function(language, text)
    assert m.eligible(m.features(path_for(language), text, entity), entity)
    return m.mutate(path_for(language), text, entity, random.Random(seed))


@pytest.mark.parametrize(("language", "name", "origin", "before", "after"), PAIRS,
                         ids=[f"{p[0]}-{p[1]}" for p in PAIRS])
def test_before_after(language, name, origin, before, after):
    assert PACK.gen09_parse(language=language, path=path_for(language), text=before) == []
    assert mutate(language, name, before) == after


def test_every_modifier_has_a_pair_in_every_language_it_serves():
    served = {(spec.name, m.name) for spec in LANGUAGES for m in for_grammar(PACK.grammars[spec.name])}
    assert served == {(p[0], p[1]) for p in PAIRS}


def test_metadata_is_described_like_the_python_modifiers():
    names = [m.name for m in MUTATORS]
    assert len(names) == len(set(names))
    for m in MUTATORS:
        assert m.description.endswith(".") and "\n" not in m.description
        assert 0 < m.likelihood <= 1 and m.min_complexity >= 1 and m.conditions
        assert set(m.languages) <= set(EXTENSION)


@pytest.mark.parametrize(("language", "name", "origin", "before", "after"), PAIRS,
                         ids=[f"{p[0]}-{p[1]}" for p in PAIRS])
def test_conditions_and_complexity_gate_the_modifier(language, name, origin, before, after):
    m, entity = mutator(language, name), function(language, before)
    features = m.features(path_for(language), before, entity)
    assert m.eligible(features, entity)
    for condition in m.conditions:
        assert not m.eligible(Features(features.complexity, features.properties - {condition}), entity)
    assert not m.eligible(Features(m.min_complexity - 1, features.properties), entity)
    assert not m.eligible(features, Entity(entity.name, "class", entity.span))


TRIVIAL = {
    "javascript": "function f() {\n  g();\n}\n",
    "typescript": "function f(): void {\n  g();\n}\n",
    "tsx": "function f(): void {\n  g();\n}\n",
    "go": "package p\n\nfunc f() {\n\tg()\n}\n",
    "rust": "fn f() {\n    g();\n}\n",
    "java": "class A {\n    void f() {\n        g();\n    }\n}\n",
    "c": "void f(void) {\n    g();\n}\n",
    "cpp": "void f() {\n    g();\n}\n",
    "ruby": "def f\n  g\nend\n",
}


@pytest.mark.parametrize("language", sorted(TRIVIAL))
def test_a_function_without_the_constructs_is_eligible_for_nothing(language):
    text = TRIVIAL[language]
    entity = function(language, text)
    for m in for_grammar(PACK.grammars[language]):
        features = m.features(path_for(language), text, entity)
        assert features == Features(1, frozenset({"function"}))
        assert not m.eligible(features, entity), m.name


def test_complexity_counts_decisions_and_properties_name_the_constructs():
    text = ("function f(xs) {\n  let n = 0;\n  for (let i = 0; i < xs.length; i++) {\n    const x = xs[i];\n"
            "    if (x > 1 && x < 9) {\n"
            "      n += x;\n    } else {\n      n = n ? n - 1 : 0;\n    }\n  }\n  return n;\n}\n")
    features = by_name("op_swap").bind("javascript", PACK.grammars["javascript"]).features(
        "m.js", text, function("javascript", text))
    assert features.complexity == 5  # 1 + for + if + && + ?:
    assert {"loop", "if", "if_else", "bool_op", "compare", "aug_assign", "assign", "ternary", "constant",
            "binary_op", "operands", "body2", "loop_bound", "return_value"} <= features.properties


def test_only_the_entity_changes_and_the_rest_of_the_file_keeps_its_bytes():
    one = "func f(a, b int) int {\r\n\treturn a - b\r\n}\r\n"
    text = "package p\r\n\r\n// same\r\n" + one + "\r\n" + one.replace("func f", "func g")
    entity = [e for e in PACK.gen09_entities(language="go", path="m.go", text=text) if e.name == "g"][0]
    out = mutator("go", "op_swap").mutate("m.go", text, entity, random.Random(0))
    assert out == text.replace("a - b\r\n}\r\n", "b - a\r\n}\r\n").replace("b - a", "a - b", 1)


def test_same_seed_same_mutant_and_seeds_differ():
    text = ("fn f(a: i32, b: i32, c: i32) -> i32 {\n    let x = a + b - c * 2 + 1 - 3;\n"
            "    let y = a * b / c + a % b;\n    x + y - a * b\n}\n")
    entity = function("rust", text)
    m = mutator("rust", "op_change")
    runs = {m.mutate("m.rs", text, entity, random.Random(s)) for s in range(10)}
    assert len(runs) > 1 and None not in runs
    assert m.mutate("m.rs", text, entity, random.Random(4)) == m.mutate("m.rs", text, entity, random.Random(4))


@pytest.mark.parametrize(("language", "before", "after"), [
    ("ruby", "def f(n)\n  for i in 0..n\n    g(i)\n  end\nend\n", "def f(n)\n  for i in 0...n\n    g(i)\n  end\nend\n"),
    ("ruby", "def f(n)\n  for i in 0...n\n    g(i)\n  end\nend\n", "def f(n)\n  for i in 0..n\n    g(i)\n  end\nend\n"),
    ("rust", "fn f(n: u32) {\n    for i in 0..=n {\n        g(i);\n    }\n}\n",
     "fn f(n: u32) {\n    for i in 0..n {\n        g(i);\n    }\n}\n"),
])
def test_range_loops_move_their_bound_in_the_language_s_own_syntax(language, before, after):
    assert mutate(language, "loop_off_by_one", before) == after


@pytest.mark.parametrize(("language", "text"), [
    ("go", "package p\n\nimport \"fmt\"\n\nfunc f(x int) error {\n\tif x > 0 {\n"
           "\t\treturn fmt.Errorf(\"bad %d\", x)\n\t}\n\treturn nil\n}\n"),
    ("go", "package p\n\nfunc f() error {\n\tv, err := g()\n\tif err != nil {\n\t\treturn err\n\t}\n"
           "\treturn h(v)\n}\n"),
    ("java", "class A {\n    private final int n;\n    A(int n) {\n        this.n = n;\n        g();\n    }\n}\n"),
    ("java", "class A {\n    int f(boolean c) {\n        int x;\n        if (c) {\n            x = 1;\n"
             "        } else {\n            x = 2;\n        }\n        return x;\n    }\n}\n"),
    ("rust", "fn f(c: bool) -> i32 {\n    let x;\n    x = 3;\n    x + 1\n}\n"),
    ("rust", "fn f(c: bool) -> i32 {\n    g();\n    if c { 1 } else { 2 }\n}\n"),
])
def test_removals_that_would_not_compile_are_not_offered(language, text):
    entity = function(language, text)
    removals = [m for m in for_grammar(PACK.grammars[language]) if m.name.startswith("remove_")
                and m.eligible(m.features(path_for(language), text, entity), entity)]
    assert removals
    for m in removals:
        assert m.mutate(path_for(language), text, entity, random.Random(0)) is None, m.name


@pytest.mark.parametrize(("language", "path", "text"), [
    ("go", "server_test.go", ""), ("go", "internal/testdata/x.go", ""),
    ("go", "gen.go", "// Code generated by stringer; DO NOT EDIT.\n\npackage p\n\nfunc f() {\n\tg()\n}\n"),
    ("rust", "tests/it.rs", ""), ("rust", "benches/b.rs", ""), ("rust", "src/t.rs", "#![cfg(test)]\nfn f() {}\n"),
    ("javascript", "src/a.test.js", ""), ("typescript", "src/__tests__/a.ts", ""), ("tsx", "src/a.spec.tsx", ""),
    ("javascript", "node_modules/x/index.js", ""), ("javascript", "dist/x.min.js", ""),
    # ava's and tape's default test files, tsd's type tests (sindresorhus/camelcase 9.0.0's test.js was mutated)
    ("javascript", "test.js", ""), ("javascript", "src/test-parse.mjs", ""), ("typescript", "index.test-d.ts", ""),
    ("java", "src/test/java/a/B.java", ""), ("java", "src/main/java/a/BTest.java", ""),
    ("c", "tests/t.c", ""), ("c", "third_party/z/z.c", ""), ("cpp", "src/x_unittest.cc", ""),
    ("ruby", "spec/a_spec.rb", ""), ("ruby", "test/test_a.rb", ""), ("ruby", "vendor/bundle/x.rb", ""),
])
def test_test_and_vendored_code_is_excluded_by_convention(language, path, text):
    assert conventions.excluded(language, path, text)
    source = text or TRIVIAL[language]
    entity = function(language, source)
    assert by_name("op_swap").bind(language, PACK.grammars[language]).features(path, source, entity) is None


@pytest.mark.parametrize(("language", "path"), [
    ("go", "server.go"), ("rust", "src/lib.rs"), ("javascript", "lib/testing.js"), ("javascript", "latest.js"),
    ("java", "src/main/java/a/B.java"),
    ("c", "src/contest.c"), ("ruby", "lib/rack/utils.rb"), ("typescript", "src/internal/testing/TestScheduler.ts"),
])
def test_source_code_is_not_excluded(language, path):
    assert not conventions.excluded(language, path, "package p\n")


def test_rust_test_modules_and_test_functions_are_excluded():
    text = ("fn real(a: i32) -> i32 {\n    a + 1\n}\n\n#[cfg(test)]\nmod tests {\n    fn helper(a: i32) -> i32 {\n"
            "        a + 1\n    }\n\n    #[test]\n    fn it_adds() {\n        assert_eq!(helper(1), 2);\n    }\n}\n"
            "\n#[test]\nfn top_level_test() {\n    assert!(1 + 1 == 2);\n}\n")
    m = mutator("rust", "op_swap")
    entities = {e.name: e for e in PACK.gen09_entities(language="rust", path="src/lib.rs", text=text)}
    eligible = {name for name, e in entities.items() if m.features("src/lib.rs", text, e) is not None}
    assert eligible == {"real"} and {"tests.helper", "tests.it_adds", "top_level_test"} <= set(entities)


def test_an_entity_with_a_syntax_error_is_not_mutated():
    text = "function f(a, b) {\n  return a - b +;\n}\n"
    entity = function("javascript", text)
    assert mutator("javascript", "op_swap").features("m.js", text, entity) is None


def test_the_pack_offers_bound_mutators_and_none_for_other_packs_languages():
    go = PACK.gen09_mutators(language="go")
    assert {m.language for m in go} == {"go"} and {"remove_err_guard", "op_swap"} <= {m.name for m in go}
    assert PACK.gen09_mutators(language="python") is None
    lua = TreeSitterPack([LanguageSpec("lua", (".lua",), "tree_sitter_lua", comments={"comment"})])
    assert lua.gen09_mutators(language="lua") is None


def test_loading_the_pack_imports_neither_tree_sitter_nor_the_mutators():
    code = ("import sys, gen09_treesitter.pack\n"
            "print([m for m in ('tree_sitter', 'gen09_treesitter.mutators') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_missing_entity_or_an_unknown_language_gives_none():
    m = mutator("go", "op_swap")
    text = "package p\n\nfunc f(a, b int) int { return a - b }\n"
    assert m.mutate("m.go", text, Entity("g", "function", Span(3, 3)), random.Random(0)) is None
    assert by_name("op_swap").features("m.lua", text, Entity("f", "function", Span(3, 3))) is None


@pytest.mark.parametrize(("language", "text", "kept"), [
    ("rust", "fn f(&self) -> u8 {\n    write!(formatter, \"{:?}\", self.0);\n    3\n}\n", ("self.0",)),
    ("rust", "fn f(t: (u8, u8)) -> u8 {\n    let x: [u8; 4] = [7; 4];\n    t.1 + x[2]\n}\n",
     ("[u8; 4]", "; 4];", "t.1")),
    ("go", "package p\n\nfunc f(x int) int {\n\tswitch x {\n\tcase 1:\n\t\treturn 2\n\t}\n\treturn 0\n}\n",
     ("case 1:",)),
    ("java", "class A {\n    int f(int x) {\n        switch (x) {\n            case 1: return 2;\n        }\n"
             "        return 0;\n    }\n}\n", ("case 1:",)),
])
def test_literals_the_compiler_needs_unchanged_stay(language, text, kept):
    entity = function(language, text)
    m = mutator(language, "op_change_const")
    outs = {m.mutate(path_for(language), text, entity, random.Random(seed)) for seed in range(12)}
    assert None not in outs and len(outs) > 1
    assert all(piece in out for out in outs for piece in kept)
