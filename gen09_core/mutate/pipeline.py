"""The ``repo_mutate`` pipeline shell: configuration → checks → resolved config written to
the run folder → the chosen recipe's ``run``. Recipe-specific stages live in the recipe."""

from __future__ import annotations

import json
from pathlib import Path

import cattrs
from attrs import evolve, frozen

from gen09_core.errors import BadInput
from gen09_core.mutate import config as cfg
from gen09_core.mutate.executors import make_executor
from gen09_core.mutate.profiles import Profile, known_profiles, resolve_profile
from gen09_core.mutate.receipts import Journal
from gen09_core.testrun.detect import PythonRecipe, detect


def mutate_registry():
    """The plugin registry plus the built-in recipe and profile modules."""
    from gen09_core.mutate import profiles, profiles_ecosystems, recipes
    from gen09_core.plugins import make_registry

    return make_registry(extra=[("core:mutate.recipes", recipes), ("core:mutate.profiles", profiles),
                                ("core:mutate.profiles_ecosystems", profiles_ecosystems)])


@frozen
class Context:
    """What a recipe's ``run`` receives."""

    config: cfg.MutateConfig
    options: object
    out: Path
    registry: object
    profile: Profile
    journal: Journal
    executor: object
    recipe: PythonRecipe  # or a CommandRecipe (gen09_core.testrun.ecosystems) for other ecosystems


def prepare(data: dict, out: Path, where: str = "config", registry=None) -> tuple:
    """Structure and check the configuration, resolve it, detect the repository's
    environment recipe, and return ``(recipe, config, options, profile, registry,
    environment recipe)`` without touching ``out``."""
    from gen09_core.mutate.recipes import known_recipes

    registry = registry or mutate_registry()
    config = cfg.structure(data, where)
    recipes = known_recipes(registry)
    cfg.check(config, recipes, known_profiles(registry))
    recipe = recipes[config.pipeline.recipe]
    raw_options = config.recipe.get(recipe.name, {})
    try:
        options = cfg.CONVERTER.structure(raw_options, recipe.options)
    except (cattrs.BaseValidationError, ValueError, TypeError) as exc:
        raise BadInput(f"{where}: recipe.{recipe.name}: " + "; ".join(cfg._messages(exc))) from None
    recipe.check(options, registry)
    from gen09_core.journal import recover

    recover(config.source.repo)  # an interrupted gen09 --write of the source is rolled back first
    resolved = cfg.resolve(config, cfg.CONVERTER.unstructure(options))
    from gen09_core.mutate.environment_command import choose

    profile, command = choose(resolve_profile(registry, resolved), resolved, Path(resolved.source.repo))
    if command is not None and getattr(options, "selection", "full") != "full":
        # no per-test coverage outside pytest: every mutant runs the whole suite, as config.json says
        options = evolve(options, selection="full")
        resolved = cfg.resolve(config, cfg.CONVERTER.unstructure(options))
    return (recipe, resolved, options, profile, registry,
            command if command is not None else detect(Path(resolved.source.repo)))


def run(data: dict, out, listener=None, where: str = "config", executor=None) -> dict:
    """Run ``repo_mutate`` into the folder ``out``; returns the recipe's summary.

    The resolved configuration is written to ``out/config.json`` first. When the folder
    already holds a run, its configuration must be identical (the run resumes) or the
    call fails with ``BadInput``.
    """
    out = Path(out).resolve()
    recipe, config, options, profile, registry, env_recipe = prepare(data, out, where)
    if executor is None and config.limits.executor == "ray":
        from gen09_core.mutate.executor_ray import import_ray

        import_ray()  # without the extra: exit 2 before anything is written
    text = cfg.to_json(config, cfg.CONVERTER.unstructure(env_recipe))
    existing = out / "config.json"
    if existing.exists():
        if existing.read_text(encoding="utf-8") != text:
            raise BadInput(f"{out} holds a run with a different configuration; use another --out "
                           "folder (or the same configuration to resume)")
    elif out.exists() and any(out.iterdir()):
        raise BadInput(f"{out} is not empty and holds no gen09 run")
    out.mkdir(parents=True, exist_ok=True)
    resumed = existing.exists()
    if not resumed:
        existing.write_text(text, encoding="utf-8")
    journal = Journal(out, listener)
    journal.event("config", "done", config.pipeline.recipe,
                  detail={"revision": config.source.revision, "resumed": resumed})
    journal.receipt("config", existing)
    limits = config.limits
    executor = executor or make_executor(
        limits.executor, limits.workers, limits.ray_address, limits.max_retries, limits.memory_mb,
        notify=lambda job, attempt, error: journal.event(
            "executor", "retried", job, failure_class="infrastructure",
            detail={"attempt": attempt, "error": error, "executor": limits.executor}))
    ctx = Context(config, options, out, registry, profile, journal, executor, env_recipe)
    summary = recipe.run(ctx)
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    journal.receipt("summary", out / "summary.json")
    return summary
