"""Loading plugins and enforcing the load-time rules.

Built-in packs and third-party packs both arrive through the ``gen09`` entry-point group.
``GEN09_PLUGINS`` (comma-separated entry-point names) limits which of them load; an empty
value loads none. ``GEN09_GENERATOR`` picks the active generator when several are installed.
"""

from __future__ import annotations

import functools
import importlib
import os
import sys
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import pluggy
from attrs import frozen

from gen09_core import hookspecs
from gen09_core.errors import PluginError

if TYPE_CHECKING:
    from gen09_core.interfaces import Generator, Mutator, Profile, Recipe
    from gen09_core.models import (
        Edit,
        Entity,
        Finding,
        Patched,
        Rejection,
        Representation,
        SourceFile,
        Span,
        Target,
    )

GROUP = "gen09"
ENV_PLUGINS = "GEN09_PLUGINS"
ENV_GENERATOR = "GEN09_GENERATOR"
CORE_PLUGINS = ("gen09_core.represent", "gen09_core.apply")
BUILTIN_PLUGINS = ("python", "treesitter", "openai")  # entry-point names this distribution registers itself


@frozen
class Registry:
    """A validated plugin manager plus the tables the core derives from it, with one typed
    method per hook: stages call these, never the plugin manager's hooks."""

    pm: pluggy.PluginManager
    extensions: dict  # ".py" -> (language, plugin name)
    generator: str | None

    def select_representation(self, target: Target | None, change_files: tuple[str, ...]) -> Representation:
        """Stage (b)'s representation for ``target`` (``gen09_select_representation``)."""
        return self.pm.hook.gen09_select_representation(target=target, change_files=change_files)

    def apply_edits(self, source: SourceFile, edits: tuple[Edit, ...], span: Span | None,
                    tolerant: bool) -> Patched | Rejection:
        """Stage (d) on one file (``gen09_apply_edits``)."""
        return self.pm.hook.gen09_apply_edits(source=source, edits=edits, span=span, tolerant=tolerant)

    def parse(self, language: str, path: str, text: str, original: str | None) -> list[Finding] | None:
        """Stage (e)'s syntax findings, None when no pack parses ``language`` (``gen09_parse``)."""
        return self.pm.hook.gen09_parse(language=language, path=path, text=text, original=original)

    def lint(self, language: str, sources: list[tuple[str, str]],
             select: tuple[str, ...]) -> list[list[Finding]] | None:
        """Stage (e)'s hard-lint findings per source, None when ``language`` has no linter
        (``gen09_lint``)."""
        return self.pm.hook.gen09_lint(language=language, sources=sources, select=select)

    def lint_unchanged(self, language: str, path: str, text: str, original: str,
                       select: tuple[str, ...]) -> bool:
        """Whether ``text`` provably has its ``original``'s lint findings, so need not be
        linted (``gen09_lint_unchanged``)."""
        return bool(self.pm.hook.gen09_lint_unchanged(language=language, path=path, text=text,
                                                      original=original, select=select))

    def normalize(self, language: str, text: str, original: str | None) -> str | None:
        """Stage (f)'s comment-free form, None when no pack serves ``language``
        (``gen09_normalize``)."""
        return self.pm.hook.gen09_normalize(language=language, text=text, original=original)

    def entities(self, language: str, path: str, text: str) -> list[Entity] | None:
        """The entities of one file, None when no pack serves ``language`` (``gen09_entities``)."""
        return self.pm.hook.gen09_entities(language=language, path=path, text=text)

    def mutators(self, language: str) -> list[Mutator]:
        """Every mutator any plugin offers for ``language``, sorted by name (``gen09_mutators``)."""
        found = [m for answer in self.pm.hook.gen09_mutators(language=language) for m in answer or []]
        return sorted(found, key=lambda m: m.name)

    def active_generator(self) -> Generator | None:
        """The object the active generator plugin's ``gen09_generator`` returns (None when
        no generator is installed). Only that plugin's hook runs: choosing a generator
        filters the callers, it never unregisters a plugin (its other hooks keep working)."""
        for impl in self.pm.hook.gen09_generator.get_hookimpls():
            if impl.plugin_name == self.generator:
                return impl.function()
        return None

    def recipes(self) -> dict[str, Recipe]:
        """Recipes by name (``gen09_recipes``); a name offered by two plugins is a
        ``PluginError`` naming both."""
        found: dict = {}
        owners: dict = {}
        for impl in self.pm.hook.gen09_recipes.get_hookimpls():
            for recipe in impl.function() or []:
                if recipe.name in found:
                    raise PluginError(f"recipe {recipe.name!r} is offered by two plugins: "
                                      f"{_pair(owners[recipe.name], impl.plugin_name)}")
                found[recipe.name], owners[recipe.name] = recipe, impl.plugin_name
        return found

    def repo_profiles(self) -> dict[str, Profile]:
        """Registered repository profiles by name (``gen09_repo_profiles``)."""
        return {p.name: p for answer in self.pm.hook.gen09_repo_profiles() for p in answer or []}

    def language_of(self, path: str) -> str | None:
        """The language serving ``path`` by its extension, or None when no pack serves it."""
        entry = self.extensions.get(PurePosixPath(path).suffix.lower())
        return entry[0] if entry else None

    def describe(self) -> dict:
        """What is loaded: each plugin with its hooks and languages, and the generator."""
        langs: dict[str, list[str]] = {}
        for lang, plugin in self.extensions.values():
            langs.setdefault(plugin, [])
            if lang not in langs[plugin]:
                langs[plugin].append(lang)
        plugins = []
        for name, plugin in sorted(self.pm.list_name_plugin(), key=lambda pair: pair[0]):
            hooks = sorted(h.name for h in self.pm.get_hookcallers(plugin) or [])
            plugins.append({
                "name": name,
                "module": getattr(plugin, "__name__", type(plugin).__name__),
                "builtin": name.startswith("core:") or name in BUILTIN_PLUGINS,
                "hooks": hooks,
                "languages": sorted(langs.get(name, [])),
            })
        return {"plugins": plugins, "generator": self.generator}


def make_registry(extra=(), load_entrypoints: bool = True, allow: str | None = None,
                  generator: str | None = None) -> Registry:
    """Build and validate a registry: core defaults, ``extra`` ``(name, plugin)`` pairs, and
    (unless disabled) entry-point plugins limited by ``allow`` or ``$GEN09_PLUGINS``; the
    active generator is ``generator`` or ``$GEN09_GENERATOR`` when several are loaded."""
    pm = pluggy.PluginManager("gen09")
    pm.add_hookspecs(hookspecs)
    for module in CORE_PLUGINS:
        pm.register(importlib.import_module(module), name="core:" + module.rsplit(".", 1)[1])
    for name, plugin in extra:
        pm.register(plugin, name=name)
    if load_entrypoints:
        _load_entrypoints(pm, os.environ.get(ENV_PLUGINS) if allow is None else allow)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {pm.get_name(exc.plugin)!r}: {exc}") from None
    extensions = _language_table(pm)
    active = _select_generator(pm, generator or os.environ.get(ENV_GENERATOR))
    return Registry(pm, extensions, active)


@functools.cache
def default_registry() -> Registry:
    """The process-wide registry, loaded once."""
    return make_registry()


def _load_entrypoints(pm: pluggy.PluginManager, allow: str | None) -> None:
    wanted = None if allow is None else {n.strip() for n in allow.split(",") if n.strip()}
    found = set()
    for name, value in entry_points(GROUP):
        found.add(name)
        if (wanted is not None and name not in wanted) or pm.get_plugin(name) is not None:
            continue
        try:
            module, _, attr = value.partition(":")
            plugin = importlib.import_module(module.strip())
            for part in filter(None, attr.strip().split(".")):
                plugin = getattr(plugin, part)
        except Exception as exc:  # a broken third-party pack must not look like our crash
            raise PluginError(f"plugin {name!r} ({value}) failed to load: {exc}") from None
        pm.register(plugin, name=name)
    missing = sorted((wanted or set()) - found)
    if missing:
        raise PluginError(f"{ENV_PLUGINS} names plugins that are not installed: {', '.join(missing)}")


def entry_points(group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of every entry point in ``group``, read straight from the installed
    distributions' ``entry_points.txt`` (first distribution of a name on ``sys.path`` wins,
    as ``importlib.metadata`` does). Importing ``importlib.metadata`` alone costs more
    start-up than the rest of ``gen09 apply``."""
    import configparser

    seen, points = set(), []
    for folder in sys.path:
        try:
            names = sorted(os.listdir(folder or "."))
        except OSError:
            continue
        for entry in names:
            if not entry.endswith((".dist-info", ".egg-info")):
                continue
            dist = entry.rsplit(".", 1)[0].split("-")[0].lower().replace("-", "_").replace(".", "_")
            if dist in seen:
                continue
            seen.add(dist)
            path = os.path.join(folder or ".", entry, "entry_points.txt")
            if not os.path.isfile(path):
                continue
            parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
            parser.optionxform = str
            try:
                parser.read(path, encoding="utf-8")
            except configparser.Error:
                continue
            if parser.has_section(group):
                points += [(k.strip(), v.strip()) for k, v in parser.items(group)]
    return sorted(points)


def _language_table(pm: pluggy.PluginManager) -> dict:
    extensions: dict[str, tuple[str, str]] = {}
    owners: dict[str, str] = {}
    for impl in pm.hook.gen09_languages.get_hookimpls():
        for lang in impl.function() or []:
            other = owners.setdefault(lang.name, impl.plugin_name)
            if other != impl.plugin_name:
                raise PluginError(f"language {lang.name!r} is served by two packs: "
                                  f"{_pair(other, impl.plugin_name)}")
            for ext in lang.extensions:
                ext = ext.lower()
                if ext in extensions and extensions[ext][1] != impl.plugin_name:
                    raise PluginError(f"extension {ext!r} is claimed by two packs: "
                                      f"{_pair(extensions[ext][1], impl.plugin_name)}")
                extensions[ext] = (lang.name, impl.plugin_name)
    return extensions


def _select_generator(pm: pluggy.PluginManager, chosen: str | None) -> str | None:
    names = [impl.plugin_name for impl in pm.hook.gen09_generator.get_hookimpls()]
    if chosen:
        if chosen not in names:
            raise PluginError(
                f"{ENV_GENERATOR}={chosen!r} is not a loaded generator; loaded: {names or 'none'}"
            )
        return chosen
    if len(names) > 1:
        raise PluginError(
            f"exactly one generator may be active, found {len(names)}: "
            f"{_pair(*names)}; choose one with {ENV_GENERATOR}"
        )
    return names[0] if names else None


def _pair(*names: str) -> str:
    return " and ".join(repr(n) for n in sorted(names))
