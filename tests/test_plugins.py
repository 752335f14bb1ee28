import json
import types

import pytest

from gen09_core import hookimpl
from gen09_core.errors import PluginError
from gen09_core.models import Language
from gen09_core.plugins import make_registry
from tests.helpers import ROOT, run_gen09


def pack(name, *languages):
    module = types.ModuleType(name)

    @hookimpl
    def gen09_languages():
        return [Language(lang, exts) for lang, exts in languages]

    module.gen09_languages = gen09_languages
    return module


def generator(name):
    module = types.ModuleType(name)

    @hookimpl
    def gen09_generator():
        return object()

    module.gen09_generator = gen09_generator
    return module


def test_unknown_hook_names_are_rejected():
    bad = types.ModuleType("typo")

    @hookimpl
    def gen09_parsee(language, path, text):
        return None

    bad.gen09_parsee = gen09_parsee
    with pytest.raises(PluginError, match="typo.*gen09_parsee"):
        make_registry(extra=[("typo", bad)])


def test_two_packs_for_one_language_name_both():
    with pytest.raises(PluginError, match="'python'.*'other' and 'python'"):
        make_registry(extra=[("other", pack("other", ("python", (".pyw",))))])


def test_two_packs_for_one_extension_name_both():
    with pytest.raises(PluginError, match="'.py'.*'python' and 'snake'"):
        make_registry(extra=[("snake", pack("snake", ("snake", (".py",))))])


def test_exactly_one_generator(monkeypatch):
    monkeypatch.delenv("GEN09_GENERATOR", raising=False)
    extra = [("gen-a", generator("gen_a")), ("gen-b", generator("gen_b"))]
    with pytest.raises(PluginError, match="'gen-a' and 'gen-b'"):
        make_registry(extra=extra, load_entrypoints=False)
    monkeypatch.setenv("GEN09_GENERATOR", "gen-b")
    registry = make_registry(extra=extra, load_entrypoints=False)
    assert registry.generator == "gen-b"
    assert registry.active_generator() is not None


def test_choosing_a_generator_never_disables_a_language(monkeypatch, tmp_path):
    """A pack that serves a language and also offers a generator keeps gating its files
    when another generator is chosen."""
    from gen09_core.models import Candidate, CandidateBatch, Edit, Finding
    from gen09_core.pipeline import run_batch

    monkeypatch.delenv("GEN09_GENERATOR", raising=False)
    both = pack("snakepack", ("snake", (".snk",)))

    @hookimpl
    def gen09_parse(language, path, text, original):
        if language != "snake":
            return None
        return [Finding("syntax", "unbalanced '('", 1)] if "(" in text else []

    @hookimpl
    def gen09_generator():
        return "snake-generator"

    both.gen09_parse, both.gen09_generator = gen09_parse, gen09_generator
    registry = make_registry(extra=[("snakepack", both), ("gen-b", generator("gen_b"))],
                             load_entrypoints=False, generator="gen-b")
    assert registry.active_generator() != "snake-generator"
    (tmp_path / "a.snk").write_text("ok\n")
    batch = CandidateBatch((Candidate("bad", (Edit("a.snk", content="f(\n"),)),))
    outcome = run_batch(batch, tmp_path, registry=registry).outcomes[0]
    assert outcome.status == "rejected" and outcome.rejection.reason == "parse_error"


def test_plugin_allowlist():
    assert make_registry(allow="").language_of("a.py") is None
    assert make_registry(allow="python").language_of("a.py") == "python"
    with pytest.raises(PluginError, match="not installed: nope"):
        make_registry(allow="python,nope")


def test_gen09_plugins_lists_hooks_and_languages():
    result = run_gen09("plugins")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    python = next(p for p in data["plugins"] if p["name"] == "python")
    assert python["languages"] == ["python"]
    assert {"gen09_parse", "gen09_lint", "gen09_normalize", "gen09_entities"} <= set(python["hooks"])
    assert "generator" in data


@pytest.mark.parametrize("group", ["gen09", "console_scripts", "pytest11"])
def test_entry_point_scan_matches_importlib_metadata(group):
    from importlib.metadata import entry_points as reference

    from gen09_core.plugins import entry_points

    assert entry_points(group) == sorted({(e.name, e.value) for e in reference(group=group)})


def test_apply_does_not_import_heavy_modules():
    import subprocess
    import sys

    code = ("import sys, runpy; sys.argv = ['gen09', 'apply', 'examples/candidates.json', '--repo', "
            "'examples/calc']\ntry:\n    runpy.run_module('gen09_core', run_name='__main__')\n"
            "except SystemExit:\n    pass\nprint(sorted(m for m in ('importlib.metadata', 'rich', 'openai', "
            "'libcst', 'tree_sitter', 'matplotlib') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr


def test_no_stage_calls_a_hook_directly():
    """Every hook call goes through the typed registry (gen09_core/plugins.py)."""
    import re

    offenders = [str(path.relative_to(ROOT)) for folder in ("gen09_core", "gen09_python", "gen09_treesitter")
                 for path in (ROOT / folder).rglob("*.py")
                 if path.name != "plugins.py" and re.search(r"\bhook\.gen09_", path.read_text(encoding="utf-8"))]
    assert offenders == []


def test_every_hook_has_a_typed_registry_method():
    import inspect

    from gen09_core import hookspecs
    from gen09_core.plugins import Registry

    hooks = [name for name, _ in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("gen09_")]
    methods = {"gen09_languages": "language_of", "gen09_generator": "active_generator",
               "gen09_repo_profiles": "repo_profiles"}
    for hook in hooks:
        method = methods.get(hook, hook.removeprefix("gen09_"))
        assert callable(getattr(Registry, method, None)), hook
        assert hook in (inspect.getdoc(getattr(Registry, method)) or "") or hook == "gen09_languages", hook


def _imports() -> dict[str, set[str]]:
    """gen09's own modules and the gen09 modules each imports (anywhere in the file)."""
    import ast

    files = {}
    for package in ("gen09_core", "gen09_python", "gen09_treesitter"):
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for module, path in files.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[module] = {m for m in found if m in files and m != module and not module.startswith(m + ".")}
    return graph


def test_no_import_cycle():
    graph = _imports()
    done: set[str] = set()

    def visit(module, path):
        assert module not in path, " -> ".join([*path[path.index(module):], module])
        if module not in done:
            for imported in sorted(graph[module]):
                visit(imported, [*path, module])
            done.add(module)

    for module in sorted(graph):
        visit(module, [])


def test_language_packs_depend_only_on_the_plugin_interface_and_neutral_modules():
    allowed = {"gen09_core", "gen09_core.models", "gen09_core.errors", "gen09_core.interfaces",
               "gen09_core.hookspecs", "gen09_core.text", "gen09_core.hashing", "gen09_core.totals"}
    used = {(module, imported) for module, imports in _imports().items()
            if module.startswith(("gen09_python", "gen09_treesitter"))
            for imported in imports if imported.startswith("gen09_core")}
    assert {(m, i) for m, i in used if i not in allowed} == set()
