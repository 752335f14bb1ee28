"""The documentation keeps up with the code (in the manner of datasette's documentation tests).

- ``docs/hooks.md`` documents every hook of ``gen09_core.hookspecs`` under a heading holding its
  current signature, states its cardinality as pluggy's spec marker has it, names an existing
  ``Registry`` method, and gives an example; the examples together form a plugin that pluggy
  accepts and that works.
- Every page in ``mkdocs.yml``'s nav exists and every page under ``docs/`` is in the nav.
- The README opens with the two commands ``.ci/run`` names, and CI runs them.
"""

from __future__ import annotations

import inspect
import random
import re
import types
from pathlib import Path

import pytest

from gen09_core import hookspecs, interfaces
from gen09_core.plugins import ENV_GENERATOR, ENV_PLUGINS, Registry, make_registry

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
HOOKS_PAGE = DOCS / "hooks.md"

FIRST_RESULT = "first non-None result wins"
COLLECTED = "every plugin answers"


def hookspec_functions() -> dict:
    """Every hook declared in ``gen09_core.hookspecs``: name → function."""
    return {name: fn for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
            if hasattr(fn, "gen09_spec")}


def signature(name: str, fn) -> str:
    """``name(a, b, c)``, the form the hooks page uses in its headings."""
    return f"{name}({', '.join(inspect.signature(fn).parameters)})"


def firstresult(fn) -> bool:
    """What pluggy's ``HookspecMarker("gen09")`` stored on the function."""
    return bool(fn.gen09_spec["firstresult"])


def documented_hooks(text: str) -> dict:
    """The hooks page's sections: hook name → (signature in the heading, section text)."""
    sections = {}
    parts = re.split(r"^### `(gen09_\w+\([^`]*\))`[ \t]*$", text, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        body = re.split(r"^## ", body, flags=re.M)[0]  # the last section ends at the next chapter
        sections[heading.split("(")[0]] = (heading, body)
    return sections


def field(section: str, label: str) -> str:
    """The text of a ``- **Label:** ...`` item (continuation lines included)."""
    found = re.search(rf"^- \*\*{label}:\*\*(.*?)(?=^- \*\*|^```|^#|\Z)", section, flags=re.M | re.S)
    return " ".join(found.group(1).split()) if found else ""


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


HOOKS = hookspec_functions()
PAGE = HOOKS_PAGE.read_text(encoding="utf-8")
SECTIONS = documented_hooks(PAGE)


def test_the_hookspecs_are_found():
    assert len(HOOKS) >= 11 and "gen09_parse" in HOOKS


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_hook_is_documented_with_its_current_signature(name):
    assert name in SECTIONS, f"docs/hooks.md has no '### `{signature(name, HOOKS[name])}`' section"
    assert SECTIONS[name][0] == signature(name, HOOKS[name])


def test_every_documented_hook_exists():
    assert sorted(set(SECTIONS) - set(HOOKS)) == []


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_hook_cardinality_is_stated(name):
    stated = field(SECTIONS.get(name, ("", ""))[1], "Cardinality")
    wanted, other = (FIRST_RESULT, COLLECTED) if firstresult(HOOKS[name]) else (COLLECTED, FIRST_RESULT)
    assert stated.startswith(wanted) and other not in stated, \
        f"{name}: the spec says {'firstresult' if firstresult(HOOKS[name]) else 'collected'}; the page says {stated!r}"


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_hook_names_its_registry_method_and_types(name):
    section = SECTIONS.get(name, ("", ""))[1]
    assert field(section, "Receives") and field(section, "Returns"), name
    methods = re.findall(r"`Registry\.(\w+)\(", field(section, "Registry method"))
    assert methods, f"{name}: no `Registry.method(...)` named"
    for method in methods:
        assert callable(getattr(Registry, method, None)), f"{name}: Registry.{method} does not exist"


@pytest.mark.parametrize("name", sorted(HOOKS))
def test_hook_has_an_example(name):
    code = "\n".join(python_blocks(SECTIONS.get(name, ("", ""))[1]))
    assert re.search(rf"@hookimpl\s*\ndef {name}\(", code), f"{name}: no example implementation"


def test_every_protocol_and_load_time_variable_is_documented():
    protocols = [n for n, c in inspect.getmembers(interfaces, inspect.isclass)
                 if c.__module__ == interfaces.__name__]
    assert protocols
    for name in protocols:
        assert re.search(rf"^### {name}$", PAGE, flags=re.M), f"protocol {name} is not documented"
    for variable in (ENV_PLUGINS, ENV_GENERATOR):
        assert variable in PAGE


def example_plugin() -> types.ModuleType:
    """The hooks page's examples, run as one module, as a plugin author would write it."""
    module = types.ModuleType("gen09_ini")
    exec(compile("\n\n".join(python_blocks(PAGE)), str(HOOKS_PAGE), "exec"), module.__dict__)
    return module


def test_the_examples_form_a_plugin_that_works(tmp_path):
    from gen09_core.candidates import parse
    from gen09_core.models import Span, Target
    from gen09_core.pipeline import run_batch

    registry = make_registry(extra=[("ini", example_plugin())], load_entrypoints=False)
    loaded = {p["name"]: p["hooks"] for p in registry.describe()["plugins"]}
    assert loaded["ini"] == sorted(HOOKS)  # pluggy accepted every example: names and arguments

    text = "[a]\nx = true\n\n[b]\ny = 1\n"
    assert registry.language_of("settings.ini") == "ini"
    assert registry.parse("ini", "s.ini", text, None) == []
    assert registry.parse("ini", "s.ini", "x = 1\n", None)[0].code == "syntax"
    assert [e.name for e in registry.entities("ini", "s.ini", text)] == ["a", "b"]
    assert registry.normalize("ini", "; note\n[a]\n", None) == "[a]"
    assert registry.select_representation(Target("s.ini", Span(1, 2)), ("s.ini",)).format == "whole_file"
    mutator, = registry.mutators("ini")
    entity = registry.entities("ini", "s.ini", text)[0]
    assert mutator.eligible(mutator.features("s.ini", text, entity), entity)
    assert "x = false" in mutator.mutate("s.ini", text, entity, random.Random(0))
    assert list(registry.recipes()) == ["count_entities"]
    assert list(registry.repo_profiles()) == ["python-pytest-src"]
    assert registry.active_generator().name == "urllib"

    (tmp_path / "s.ini").write_text(text, encoding="utf-8")
    batch = parse({"version": 1, "candidates": [
        {"id": "ok", "edits": [{"file": "s.ini", "search": "y = 1", "replace": "y = 2"}]},
        {"id": "commented", "edits": [{"file": "s.ini", "search": "y = 1", "replace": "; why\ny = 2"}]},
        {"id": "broken", "edits": [{"file": "s.ini", "search": "[b]", "replace": "[b"}]},
        {"id": "blank", "edits": [{"file": "s.ini", "search": "y = 1", "replace": "y = 3 "}]},
    ]})
    report = run_batch(batch, tmp_path, registry=registry, hard_lint=("INI001",))
    assert [(o.id, o.status, o.rejection and o.rejection.reason) for o in report.outcomes] == [
        ("ok", "valid", None), ("commented", "duplicate", None),
        ("broken", "rejected", "parse_error"), ("blank", "rejected", "lint_error")]


def nav_pages() -> list[str]:
    """The ``.md`` files named in ``mkdocs.yml``'s nav (one ``- Title: page.md`` per line)."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^docs_dir: docs$", config, flags=re.M)
    nav = config.split("\nnav:\n", 1)[1]
    return re.findall(r"^\s*- (?:[^\n]*?: )?\"?([\w./-]+\.md)\"?\s*$", nav, flags=re.M)


def test_every_nav_page_exists_and_every_page_is_in_the_nav():
    pages = nav_pages()
    assert "index.md" in pages and "hooks.md" in pages
    assert sorted(p for p in pages if not (DOCS / p).is_file()) == []
    on_disk = sorted(str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md"))
    assert sorted(set(on_disk) - set(pages)) == []
    assert len(pages) == len(set(pages))


def ci_commands() -> dict:
    """The README commands ``.ci/run``'s comments name: ``#   example: ...``, ``#   tests: ...``."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    return dict(re.findall(r"^#\s+(example|tests): (.+?)\s*$", script, flags=re.M))


def test_the_readme_opens_with_the_two_commands_ci_names():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_heading = readme.find("\n## ")
    blocks = re.findall(r"^```bash\n(.*?)\n```", readme[:first_heading], flags=re.M | re.S)
    commands = ci_commands()
    assert blocks[:2] == [commands["example"], commands["tests"]]


def test_ci_runs_the_readme_commands():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = ci_commands()
    for step in commands["tests"].split(" && "):
        assert step in script, f".ci/run does not run {step!r}"
    assert commands["example"].split(" && ")[-1] in script
    assert script[-1] == commands["tests"].split(" && ")[-1], "the tests are .ci/run's last step"


def test_the_readme_links_every_top_level_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(docs/([\w./-]+\.md)(?:#[\w-]*)?\)", readme))
    assert sorted(p for p in linked if not (DOCS / p).is_file()) == []
    assert sorted(p for p in nav_pages() if "/" not in p and p not in linked) == []
