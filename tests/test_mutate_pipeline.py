"""mutate.pipeline: a plugged-in executor and a plugged-in recipe."""

import pytest

from tests.helpers import MUTATE_FIXTURE, RecordingExecutor


def test_pipeline_runs_through_a_plugged_in_executor(tmp_path):
    from gen09_core.mutate.pipeline import run

    rec = RecordingExecutor()
    summary = run({"source": {"repo": str(MUTATE_FIXTURE)}, "limits": {"max_mutants": 2}, "seeds": {"mutate": 5}},
                  tmp_path / "out", executor=rec)
    assert [j.job_id for j in rec.jobs[:2]] == ["baseline-1", "baseline-2"]
    assert len(rec.jobs) >= 2 + min(1, summary["mutants"])
    assert summary["mutants"] == 2


def test_a_second_recipe_arrives_through_the_hook(tmp_path):
    from attrs import frozen

    from gen09_core import hookimpl
    from gen09_core.errors import PluginError
    from gen09_core.mutate import profiles, recipes
    from gen09_core.mutate.pipeline import prepare, run
    from gen09_core.plugins import make_registry

    @frozen
    class Options:
        level: int = 1

    @frozen
    class Echo:
        name: str = "echo"
        version: str = "0"
        options: type = Options

        def check(self, options, registry):
            pass

        def run(self, ctx):
            return {"exported": 0, "level": ctx.options.level, "profile": ctx.profile.name}

    class Plugin:
        @hookimpl
        def gen09_recipes(self):
            return [Echo()]

    registry = make_registry(extra=[("core:mutate.recipes", recipes), ("core:mutate.profiles", profiles),
                                    ("echo", Plugin())])
    data = {"pipeline": {"recipe": "echo"}, "source": {"repo": str(MUTATE_FIXTURE)}, "recipe": {"echo": {"level": 3}}}
    recipe, config, options, profile, _, detected = prepare(data, tmp_path, registry=registry)
    assert recipe.name == "echo" and options.level == 3 and config.recipe == {"echo": {"level": 3}}

    class Twin:
        @hookimpl
        def gen09_recipes(self):
            from gen09_core.mutate.recipes.swe_smith import RECIPE

            return [RECIPE]

    clash = make_registry(extra=[("core:mutate.recipes", recipes), ("twin", Twin())])
    with pytest.raises(PluginError, match="offered by two plugins"):
        recipes.known_recipes(clash)
    assert callable(run)
