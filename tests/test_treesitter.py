"""The tree-sitter pack on real fixture files: gate, normalizer, entities, per language."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from attrs import frozen

from gen09_core.candidates import parse
from gen09_core.entities import list_entities, match_entity
from gen09_core.errors import PluginError
from gen09_core.models import Language
from gen09_core.pipeline import run_batch
from gen09_core.plugins import make_registry
from gen09_treesitter import LanguageSpec, TreeSitterPack, engine
from gen09_treesitter.languages import LANGUAGES
from tests.helpers import run_gen09

FIXTURES = Path(__file__).parent / "fixtures" / "treesitter"


@frozen
class Case:
    file: str
    valid: tuple  # (search, replace)
    commented: tuple  # the same change with comments and whitespace added
    in_string: tuple  # an edit after a comment marker inside a string literal
    unclosed: tuple  # (search, replace, line): a missing ')' / ']'
    broken: tuple  # (search, replace, line): a missing brace or an unterminated string
    method: tuple  # (qualified name, first line, last line)


CASES = {
    "javascript": Case(
        "server.js",
        ("status: 404, body", "status: 410, body"),
        ("status: 404, body: \"not found: \" + this.prefix + request.path };",
         "status:  410,   body: \"not found: \" + this.prefix + request.path }; // gone"),
        ('"http://"', '"http://proxy/"'),
        ("this.routes.set(path, handler);", "this.routes.set(path, handler;", 12),
        ('"not found: "', '"not found: ', 19),
        ("Router.handle", 16, 22),
    ),
    "typescript": Case(
        "shapes.ts",
        ("return this.width * this.height;", "return this.height * this.width;"),
        ("    return this.width * this.height;", "    /* swapped */ return this.height  *\t"
         "this.width;  // commutes"),
        ('"https://example.org/shapes"', '"https://example.org/circles"'),
        ("return new Rect(this.width * factor, this.height * factor);",
         "return new Rect(this.width * factor, this.height * factor;", 19),
        ("    return this.width * this.height;\n  }", "    return this.width * this.height;", 17),
        ("Rect.area", 14, 16),
    ),
    "tsx": Case(
        "counter.tsx",
        ("setCount(count + 1)", "setCount(count + 2)"),
        ("<button onClick={() => setCount(count + 1)}>{count}</button>",
         "<button onClick={() => setCount(count  +  /* faster */  2)}>{count}</button>"),
        ('"https://example.org"', '"https://example.com"'),
        ("useState(start);", "useState(start;", 13),
        ("  render(props: Props) {", "  render(props: Props) ", 8),
        ("Counter.render", 7, 9),
    ),
    "go": Case(
        "server.go",
        ("\ts.routes[path] = h\n", "\ts.routes[s.prefix+path] = h\n"),
        ("\ts.routes[path] = h\n", "\t// prefix the key\n\ts.routes[s.prefix+path]  =  h  // keyed\n"),
        ('"http://"', '"https://"'),
        ("s.routes[path] = h", "s.routes[path = h", 33),
        ('"not found: %s%s%s"', '"not found: %s%s%s', 26),
        ("Server.Handle", 23, 29),
    ),
    "rust": Case(
        "point.rs",
        ("Point { x, y }", "Point { x: x, y: y }"),
        ("        Point { x, y }", "        // explicit fields\n        Point {  x: x, /* x */ y: y }"),
        ('"geo://origin"', '"geo://centre"'),
        ("(self.x * self.x + self.y * self.y).sqrt()", "(self.x * self.x + self.y * self.y.sqrt()", 20),
        ('"({}, {}) from {}"', '"({}, {}) from {}', 26),
        ("Point.norm", 19, 21),
    ),
    "java": Case(
        "Inventory.java",
        ("if (have < count) {", "if (count > have) {"),
        ("        if (have < count) {", "        /* guard */ if (count > have) {  // short"),
        ('"http://warehouse"', '"http://depot"'),
        ("stock.put(item, have - count);", "stock.put(item, have - count;", 23),
        ('"short of "', '"short of ', 21),
        ("Inventory.remove", 18, 25),
    ),
    "c": Case(
        "buffer.c",
        ("size_t cap = b->cap ? b->cap * 2 : 16;", "size_t cap = b->cap ? b->cap * 2 : 32;"),
        ("    size_t cap = b->cap ? b->cap * 2 : 16;",
         "    /* start bigger */\n    size_t cap = b->cap ? b->cap * 2 : 32;  // doubled"),
        ('"buf://"', '"buffer://"'),
        ("memcpy(b->data + b->len, s, n);", "memcpy(b->data + b->len, s, n;", 37),
        ("        cap *= 2;\n    }", "        cap *= 2;", 39),
        ("buffer_append", 32, 40),
    ),
    "cpp": Case(
        "shapes.cpp",
        ("return w_ * h_;", "return h_ * w_;"),
        ("        return w_ * h_;", "        return h_ * w_;  /* commutes */"),
        ('"geo://shape"', '"geo://rect"'),
        ("sum += r.area();", "sum += r.area(;", 38),
        ('"geo://shape"', '"geo://shape', 7),
        ("geo.Rect.area", 19, 21),
    ),
    "ruby": Case(
        "account.rb",
        ("@balance -= amount", "@balance = @balance - amount"),
        ("      @balance -= amount", "      # explicit\n      @balance  =  @balance - amount # same"),
        ('"https://bank.example/#accounts"', '"https://bank.example/#savings"'),
        ("def withdraw(amount)", "def withdraw(amount", 14),
        ("@owner = owner", "@owner = (owner", 10),
        ("Bank.Account.withdraw", 14, 18),
    ),
}


def _repo(tmp_path, case, prefix=""):
    repo = tmp_path / "repo"
    repo.mkdir()
    text = (FIXTURES / case.file).read_text()
    (repo / case.file).write_text(prefix + text)
    return repo


def _edit(case, pair, cid):
    return {"id": cid, "edits": [{"file": case.file, "search": pair[0], "replace": pair[1]}]}


def _run(repo, registry, candidates):
    return run_batch(parse({"version": 1, "candidates": candidates}), repo, registry=registry,
                     hard_lint=())


@pytest.fixture(scope="module")
def reg():
    return make_registry()


def test_every_builtin_language_has_a_case():
    assert {spec.name for spec in LANGUAGES} == set(CASES)


@pytest.mark.parametrize("language", sorted(CASES))
def test_fixture_parses_cleanly_in_its_language(language, reg):
    case = CASES[language]
    assert reg.language_of(case.file) == language
    assert reg.parse(language, case.file, original=None, text=(FIXTURES / case.file).read_text()) == []


@pytest.mark.parametrize("language", sorted(CASES))
def test_gate_and_dedup(language, reg, tmp_path):
    case = CASES[language]
    repo = _repo(tmp_path, case)
    both = {"id": "string", "edits": [
        {"file": case.file, "search": case.valid[0], "replace": case.valid[1]},
        {"file": case.file, "search": case.in_string[0], "replace": case.in_string[1]},
    ]}
    report = _run(repo, reg, [
        _edit(case, case.valid, "fix"),
        _edit(case, case.commented, "commented"),
        both,
        _edit(case, case.unclosed[:2], "unclosed"),
        _edit(case, case.broken[:2], "broken"),
    ])
    assert report.by_id("fix").status == "valid"
    commented = report.by_id("commented")
    assert (commented.status, commented.duplicate_of) == ("duplicate", "fix")
    # the text after a comment marker inside a string literal is code, not a comment
    assert report.by_id("string").status == "valid"
    for cid, (_, _, line) in (("unclosed", case.unclosed), ("broken", case.broken)):
        outcome = report.by_id(cid)
        assert (outcome.status, outcome.rejection.reason) == ("rejected", "parse_error")
        assert f"{case.file}: line {line}: " in outcome.rejection.detail


@pytest.mark.parametrize("language", sorted(CASES))
def test_original_with_error_node_still_accepts_valid_candidates(language, reg, tmp_path):
    case = CASES[language]
    broken_tail = "\n) ) )\n"
    repo = _repo(tmp_path, case)
    path = repo / case.file
    path.write_text(path.read_text() + broken_tail)
    assert reg.parse(language, case.file, original=None, text=path.read_text())
    report = _run(repo, reg, [_edit(case, case.valid, "fix"), _edit(case, case.unclosed[:2], "unclosed")])
    assert report.by_id("fix").status == "valid"
    unclosed = report.by_id("unclosed")
    assert unclosed.status == "rejected"
    assert f"line {case.unclosed[2]}: " in unclosed.rejection.detail


@pytest.mark.parametrize("language", sorted(CASES))
def test_entity_location_finds_the_method(language, reg):
    case = CASES[language]
    name, first, last = case.method
    entities = list_entities(reg, case.file, (FIXTURES / case.file).read_text())
    found = match_entity(entities, name, case.file)
    assert found is not None, [e.name for e in entities]
    assert (found.span.start, found.span.end) == (first, last)
    module_qualified = Path(case.file).stem + "." + name
    assert match_entity(entities, module_qualified, case.file) == found


def test_entity_names_and_kinds(reg):
    def names(file):
        return {e.name: e.kind for e in list_entities(reg, file, (FIXTURES / file).read_text())}

    assert names("server.go") == {"Server": "type", "New": "function", "Server.Handle": "method",
                                  "Server.Add": "method"}
    rust = names("point.rs")
    assert rust["Point.fmt"] == "method" and rust["midpoint"] == "function" and rust["Point"] == "struct"
    assert "geo.Rect.scaled" in names("shapes.cpp")  # defined outside the class as Rect::scaled
    assert names("account.rb")["Bank.Account.open"] == "method"
    assert names("server.js")["ok"] == "function"  # const ok = (body) => ...
    # a function assigned to a property (jonschlinkert/is-number: ``module.exports = function (num) {…}``, its
    # only code, made no mutant: "No mutant was made"); a value that is no function is no entity
    common = {e.name: (e.kind, e.span.start, e.span.end) for e in list_entities(reg, "lib.js", (
        "'use strict';\nmodule.exports = function (num) {\n  return num - num === 0;\n};\n"
        "Foo.prototype.bar = function () {\n  return this.x;\n};\nexports.trim = (s) => s.trim();\n"
        "exports.count = 3;\n"))}
    assert common == {"module.exports": ("method", 2, 4), "Foo.prototype.bar": ("method", 5, 7),
                      "exports.trim": ("method", 8, 8)}
    # and mutators reach into such a function's body (its body was not found: still no mutant)
    import random

    from gen09_core.mutate.mutants import mutators_by_language

    text = "module.exports = function (num) {\n  return num - num === 0;\n};\n"
    (entity,) = list_entities(reg, "index.js", text)
    (flip,) = [m for m in mutators_by_language(reg, ())["javascript"] if m.name == "op_flip_compare"]
    assert flip.eligible(flip.features("index.js", text, entity), entity)
    assert flip.mutate("index.js", text, entity, random.Random(1)) == text.replace("===", "!==")


@pytest.mark.parametrize("language", sorted(CASES))
def test_normalizer_keeps_comment_markers_inside_strings(language, reg):
    case = CASES[language]
    text = (FIXTURES / case.file).read_text()
    normal = reg.normalize(language, original=None, text=text)
    assert case.in_string[0] in normal
    assert "comment" not in normal.replace('"not a comment', "")


def test_block_comment_between_tokens_keeps_them_apart(reg):
    normal = reg.normalize("c", original=None, text="int a/*x*/b;\nint c; /* d */\n")
    assert normal.split("\n")[0] == "int a b;"


def test_c_header_with_cpp_content_falls_back_to_cpp(reg):
    header = "#pragma once\nnamespace geo {\nclass Box { public: int w() const { return 1; } };\n}\n"
    assert reg.language_of("geo/box.h") == "c"
    assert reg.parse("c", "geo/box.h", original=None, text=header) == []
    assert reg.parse("c", "geo/box.c", original=None, text=header)  # .c files stay C
    broken = header.replace("return 1;", "return (1;")
    assert reg.parse("c", "geo/box.h", original=None, text=broken)


@pytest.mark.parametrize("language", sorted(CASES))
def test_incremental_reparse_gives_the_same_findings_as_a_full_parse(language):
    case = CASES[language]
    spec = next(s for s in LANGUAGES if s.name == language)
    incremental, full = engine.Grammar(spec), engine.Grammar(spec, incremental=False)
    original = (FIXTURES / case.file).read_text()
    texts = [original]
    for pair in (case.valid, case.commented, case.in_string, case.unclosed[:2], case.broken[:2]):
        texts.append(original.replace(pair[0], pair[1]))
    texts += [texts[1].replace(case.in_string[0], case.in_string[1]), original + "\n) ) )\n", original]
    for text in texts:
        data = text.encode()
        assert engine.findings(incremental.parse(data, case.file)) == engine.findings(full.parse(data))
        assert str(incremental.parse(data, case.file).root_node) == str(full.full_parse(data).root_node)


def test_changed_range_over_chunk_boundaries():
    old = b"a" * 200_000 + b"XYZ" + b"b" * 150_000
    new = b"a" * 200_000 + b"Q" + b"b" * 150_000
    assert engine.changed_range(old, new) == (200_000, 200_003, 200_001)
    assert engine.changed_range(old, old) == (len(old), len(old), len(old))
    assert engine.changed_range(b"abc", b"abcd") == (3, 3, 4)
    assert engine.changed_range(b"aaaa", b"aa") == (2, 4, 2)


def test_two_packs_claiming_one_language_fail_at_load_time():
    clash = TreeSitterPack([LanguageSpec("go", (".go2",), "tree_sitter_go", comments={"comment"})])
    with pytest.raises(PluginError, match=r"language 'go' is served by two packs: '(clash|treesitter)' and '(clash|treesitter)'"):
        make_registry(extra=[("clash", clash)])


def test_two_packs_claiming_one_extension_fail_at_load_time():
    class OtherJs:
        from gen09_core import hookimpl

        @hookimpl
        def gen09_languages(self):
            return [Language("ecmascript", (".JS",))]

    with pytest.raises(PluginError, match=r"extension '\.js' is claimed by two packs: "
                                          r"'(otherjs|treesitter)' and '(otherjs|treesitter)'"):
        make_registry(extra=[("otherjs", OtherJs())])


def test_grammars_load_lazily():
    code = (
        "import sys\n"
        "from gen09_treesitter import pack\n"
        "from gen09_core.plugins import make_registry\n"
        "reg = make_registry()\n"
        "assert not [m for m in sys.modules if m.startswith('tree_sitter')], 'grammar imported early'\n"
        "reg.parse('go', 'a.go', original=None, text='package a\\n')\n"
        "loaded = sorted(m.split('.')[0] for m in sys.modules if m.startswith('tree_sitter_'))\n"
        "assert set(loaded) == {'tree_sitter_go'}, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_cli_apply_gates_a_go_file(tmp_path):
    case = CASES["go"]
    repo = _repo(tmp_path, case)
    candidates = tmp_path / "candidates.json"
    candidates.write_text(
        '{"version": 1, "target": {"file": "server.go", "entity": "server.Server.Add"},'
        ' "candidates": [{"id": "ok", "search": "s.routes[path] = h", "replace": "s.routes[path+\\"/\\"] = h"},'
        ' {"id": "bad", "search": "s.routes[path] = h", "replace": "s.routes[path = h"}]}'
    )
    result = run_gen09("apply", "--json", "--repo", repo, candidates)
    assert result.returncode == 0, result.stderr
    entries = {e["id"]: e for e in json.loads(result.stdout)["candidates"]}
    assert entries["ok"]["status"] == "valid"
    assert entries["bad"]["reason"] == "parse_error"
    assert "server.go: line 33: MISSING" in entries["bad"]["detail"]
    assert (repo / "server.go").read_text() == (FIXTURES / "server.go").read_text()


def test_hooks_answer_none_for_languages_they_do_not_serve():
    from gen09_treesitter.pack import PACK

    assert PACK.gen09_parse(language="python", path="a.py", text="x = 1\n") is None
    assert PACK.gen09_normalize(language="python", text="x = 1  # c\n") is None
    assert PACK.gen09_entities(language="python", path="a.py", text="def f(): pass\n") is None
    assert {lang.name for lang in PACK.gen09_languages()} == {spec.name for spec in LANGUAGES}


def test_findings_carry_no_line_numbers_in_messages():
    spec = next(s for s in LANGUAGES if s.name == "go")
    grammar = engine.Grammar(spec)
    text = (FIXTURES / "server.go").read_text()
    moved = "\n\n\n" + text
    a = engine.findings(grammar.parse(text.replace("s.routes[path] = h", "s.routes[path = h").encode()))
    b = engine.findings(grammar.parse(moved.replace("s.routes[path] = h", "s.routes[path = h").encode()))
    assert [(f.code, f.message) for f in a] == [(f.code, f.message) for f in b]
    assert [f.line + 3 for f in a] == [f.line for f in b]


def test_ruby_missing_end_is_reported_at_the_end_of_the_file(reg, tmp_path):
    case = CASES["ruby"]
    repo = _repo(tmp_path, case)
    report = _run(repo, reg, [_edit(case, ("      @balance = balance\n    end\n", "      @balance = balance\n"),
                                    "no-end")])
    rejection = report.by_id("no-end").rejection
    assert rejection.reason == "parse_error"
    assert "line 23: ERROR syntax error in file (unclosed block?)" in rejection.detail


@pytest.mark.parametrize("language, plain, commented", [
    ("c", "int f(int a, int b) { return a + b; }\n", "int f(int a, int b) { return a + b /* c */; }\n"),
    ("c", "int f(int a, int b) { return g(a); }\n", "int f(int a, int b) { return g(/* c */ a); }\n"),
    ("javascript", "const s = a + b;\n", "const s = a + b /* c */;\n"),
    ("javascript", "const s = a + b;\n", "const s = a /* c */ + b;\n"),
    ("go", "package p\n\nvar s = a + b\n", "package p\n\nvar s = a + b // c\n"),
    ("rust", "fn f() -> i32 { a + b }\n", "fn f() -> i32 { a + b /* c */ }\n"),
])
def test_the_blanks_a_removed_comment_leaves_do_not_make_a_candidate_distinct(reg, language, plain, commented):
    from gen09_core.dedup import collapse_whitespace

    def normal(text):
        return collapse_whitespace(reg.normalize(language, original=None, text=text))

    assert normal(plain) == normal(commented)
