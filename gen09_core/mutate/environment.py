"""The environment stage of ``repo_mutate``: detect the repository's recipe, build its
isolated venv in the work copy, record the lock, and describe how its tests run.

The recipe is detected from the *source* repository when the configuration is resolved
(so ``config.json`` records it with provenance before any work starts); the venv is
built in the pristine work copy, so a build step that generates files (a
``_version.py``) leaves them where the tests and the bundles see them. Re-running into the
same run folder reuses a finished venv.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from attrs import frozen

from gen09_core.mutate.profiles import Profile
from gen09_core.testrun.detect import PythonRecipe
from gen09_core.testrun.jobs import TestEnv, install_plugin
from gen09_core.testrun.venv import READY, Lock, build_from_recipe, capture

RECORD = "environment.json"


@frozen
class Environment:
    """A prepared environment: how tests run (``test_env``), what it holds (``lock``),
    what was detected (``recipe``) and what building it changed of that (``notes``)."""

    test_env: TestEnv
    lock: Lock
    recipe: PythonRecipe
    notes: tuple[str, ...] = ()


def prepare(profile: Profile, recipe: PythonRecipe, work: Path, pristine: Path) -> Environment:
    """Build (or reuse) the environment under ``work`` for the work copy ``pristine``."""
    work = Path(work).resolve()
    plugin_dir = install_plugin(work / "plugins", warm=True)
    record = work / RECORD
    venv, notes = work / "venv", ()
    if not profile.venv:
        python, venv_dir = sys.executable, None
        lock = capture(python, recipe, profile.plugins)
        record.write_text(json.dumps({"lock": lock.render()}, indent=1) + "\n", encoding="utf-8")
    else:
        python, venv_dir = str(venv / "bin" / "python"), str(venv)
        if (venv / READY).exists() and record.exists():
            saved = json.loads(record.read_text(encoding="utf-8"))
            lock, notes = Lock.parse(saved["lock"]), tuple(saved.get("notes", ()))
        else:
            lock, notes = build_from_recipe(recipe, venv, Path(pristine), profile.install, profile.plugins)
            record.write_text(json.dumps({"lock": lock.render(), "notes": list(notes)}, indent=1) + "\n",
                              encoding="utf-8")
            (venv / READY).write_text("ok\n")
    test_paths = profile.test_paths or recipe.test_paths
    test_env = TestEnv(python, str(plugin_dir), venv_dir, profile.pythonpath or recipe.pythonpath,
                       lock.plugins, profile.pytest_args or recipe.pytest_args, recipe.addopts, test_paths,
                       dict(profile.env), lock.render() if venv_dir else None)
    return Environment(test_env, lock, recipe, notes)


def environment_stage(ctx, work) -> Environment:
    """Prepare the environment of ``work.pristine`` for ``ctx.profile``, with its events and
    receipt; a failure names what was detected."""
    from gen09_core.errors import EnvironmentFailure

    recipe, journal, profile = ctx.recipe, ctx.journal, ctx.profile
    if hasattr(recipe, "ecosystem"):  # another ecosystem's command recipe
        from gen09_core.mutate.environment_command import run_stage

        return run_stage(profile, recipe, work.work, work.pristine, journal)
    journal.event("environment", "started", profile.name,
                  detail={"detected": recipe.summary(), "notes": list(recipe.notes)})
    try:
        env = prepare(profile, recipe, work.work, work.pristine)
    except EnvironmentFailure as exc:
        journal.event("environment", "failed", profile.name, failure_class="infrastructure",
                      detail={"error": str(exc)})
        raise EnvironmentFailure(f"{exc} (detected: {recipe.summary()})") from None
    journal.event("environment", "done", profile.name, detail={
        "python": env.lock.python, "packages": len(env.lock.packages), "project": list(env.lock.project),
        "pytest_plugins": list(env.lock.plugins), "pythonpath": list(env.test_env.pythonpath),
        "dropped_addopts": list(recipe.dropped_options), "notes": list(env.notes)})
    journal.receipt("environment", work.work / RECORD,
                    {"lock": env.lock.digest(), "detected": recipe.summary()})
    return env
