"""Recipes of ``repo_mutate``, registered through the ``gen09_recipes`` hook.

A recipe object has ``name``, ``version``, ``options`` (an attrs class, structured strictly
from ``[recipe.NAME]`` of the configuration), ``check(options, registry)`` (raise
``BadInput`` for options it cannot honour) and ``run(context)`` (returns the run summary).
A plugin adds a recipe by answering the hook; nothing in the core changes.
"""

from __future__ import annotations

from gen09_core import hookimpl
from gen09_core.errors import PluginError


@hookimpl
def gen09_recipes():
    """The built-in ``swe_smith`` recipe."""
    from gen09_core.mutate.recipes.swe_smith import RECIPE

    return [RECIPE]


def known_recipes(registry) -> dict:
    """Recipes by name; a name offered by two plugins is a ``PluginError`` naming both."""
    found: dict = {}
    owners: dict = {}
    for impl in registry.pm.hook.gen09_recipes.get_hookimpls():
        for recipe in impl.function() or []:
            if recipe.name in found:
                raise PluginError(f"recipe {recipe.name!r} is offered by two plugins: "
                                  f"{owners[recipe.name]!r} and {impl.plugin_name!r}")
            found[recipe.name] = recipe
            owners[recipe.name] = impl.plugin_name
    return found
