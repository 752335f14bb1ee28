"""Recipes of ``repo_mutate``, registered through the ``gen09_recipes`` hook.

A recipe object has ``name``, ``version``, ``options`` (an attrs class, structured strictly
from ``[recipe.NAME]`` of the configuration), ``check(options, registry)`` (raise
``BadInput`` for options it cannot honour) and ``run(context)`` (returns the run summary).
A plugin adds a recipe by answering the hook; nothing in the core changes.
"""

from __future__ import annotations

from gen09_core import hookimpl


@hookimpl
def gen09_recipes():
    """The built-in ``swe_smith`` recipe."""
    from gen09_core.mutate.recipes.swe_smith import RECIPE

    return [RECIPE]


def known_recipes(registry) -> dict:
    """Recipes by name; a name offered by two plugins is a ``PluginError`` naming both."""
    return registry.recipes()
