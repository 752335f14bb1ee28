"""The environment stage of ``repo_mutate`` for command recipes (every ecosystem but
Python's): choose the recipe, run its setup once in the pristine work copy, record the
toolchain lock, and describe how its tests run (:mod:`gen09_core.testrun.ecosystems`).

Re-running into the same run folder reuses a finished setup.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from attrs import evolve, frozen

from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.testrun import ecosystems
from gen09_core.testrun.ecosystems import CommandRecipe, node
from gen09_core.testrun.ecosystems.jobs import CommandEnv, install_runner, run_command_job
from gen09_core.testrun.ecosystems.toolchain import ToolchainLock, capture, missing_tools
from gen09_core.testrun.process import clean_env, run_limited, tail
from gen09_core.testrun.reports import FORMATS

RECORD = "environment.json"
READY = ".setup-ready"
# runtimes that reserve far more address space than they use (V8; the JVM, whose heap has its
# own bound), so their jobs run without the address-space limit
UNBOUNDED = ("node", "maven", "gradle")
PYTHON_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
SETUP_TIMEOUT = 1800.0
# the line of a failed setup's output that says what went wrong (``Error: …``, ``error[E0433]: …``,
# pip's ``ERROR: …``, npm's first ``npm error`` line past its code: pmndrs/zustand's stale
# package-lock.json showed only the help of ``npm ci``), which its last lines (a stack's frames, a
# command's help) may not show
_CAUSE = re.compile(r"(?:\b[A-Z]\w*)?(?:Error|Exception): \S|\berror(?:\[\w+\])?: \S|\bERROR: \S"
                    r"|^npm (?:error|ERR!) (?!code\b)\S")


def choose(profile, config, repo: Path):
    """``(profile, recipe)`` for ``repo``: a command recipe when the profile names an
    ecosystem, or when the default profile meets a repository with no Python project
    files but another ecosystem's; else None for the recipe (Python's detection applies)."""
    repo = Path(repo)
    default = config.profile == "python-pytest" and "python-pytest" not in config.profiles
    if profile.ecosystem is None:
        if default and not any((repo / name).is_file() for name in PYTHON_FILES):
            found = ecosystems.detect(repo)
            if found is not None:
                return evolve(profile, name=found.ecosystem, language=found.language,
                              ecosystem=found.ecosystem), found
        return profile, None
    if profile.ecosystem == "command":
        return profile, command_recipe(profile)
    from importlib import import_module

    try:
        found = import_module(f"gen09_core.testrun.ecosystems.{profile.ecosystem}").detect(repo)
    except ecosystems.NoRunner as missing:
        if not (profile.test and profile.report):
            raise
        found = missing.recipe  # the profile gives what was not found (nanoid: ``bnt``, wrapping node --test)
    if found is None:
        raise BadInput(f"profile {profile.name!r}: {repo} has no {profile.ecosystem} project files")
    return profile, override(found, profile)


def override(recipe: CommandRecipe, profile) -> CommandRecipe:
    """``recipe`` with the fields the profile sets."""
    changes = {k: getattr(profile, k) for k in ("setup", "test", "report", "image")
               if getattr(profile, k) is not None}
    if changes:
        changes["provenance"] = recipe.provenance + tuple(
            (k, f"profiles.{profile.name}.{k}") for k in list(changes))
    if "setup" in changes:  # the image and gen09 verify install the way the given setup does
        changes.update(image_setup=None, replay=None)
    if profile.env:
        changes["env"] = {**recipe.env, **profile.env}
    if "report" in changes:
        _check_report(profile.name, changes["report"])
    return evolve(recipe, **changes)


def command_recipe(profile) -> CommandRecipe:
    """The recipe of a ``base = "command"`` profile; ``BadInput`` when ``test`` or
    ``report`` is missing or the report format is unknown."""
    if not profile.test or not profile.report:
        raise BadInput(f"profiles.{profile.name}: a command profile needs test = \"...\" and "
                       f"report = \"FORMAT:PATH\" (FORMAT one of {', '.join(FORMATS)})")
    _check_report(profile.name, profile.report)
    return CommandRecipe(
        ecosystem="command", language=profile.language or "any", test=profile.test, report=profile.report,
        setup=tuple(profile.setup or ()), image=profile.image or "debian:bookworm", env=dict(profile.env),
        provenance=((f"command {profile.test!r}", f"profiles.{profile.name}"),))


def _check_report(name: str, report: str) -> None:
    fmt = report.split(":", 1)[0]
    if fmt not in FORMATS or ":" not in report:
        raise BadInput(f"profiles.{name}.report {report!r}: must be FORMAT:PATH with FORMAT one of "
                       f"{', '.join(FORMATS)} and PATH a file glob or - for the command's output")


@frozen
class CommandEnvironment:
    """A prepared command environment: how tests run (``test_env``), the toolchain that
    ran them (``lock``) and what was detected (``recipe``)."""

    test_env: CommandEnv
    lock: ToolchainLock
    recipe: CommandRecipe

    def runner(self):
        """The job runner (every mutant runs the whole suite in a fresh process)."""
        return functools.partial(run_command_job, self.test_env)

    def describe(self) -> dict:
        """What the journal and the summary say about the environment."""
        return {"ecosystem": self.lock.ecosystem, "toolchain": self.lock.describe(), "test": self.lock.test,
                "report": self.lock.report, "image": self.lock.image,
                "lockfiles": [name for name, _ in self.lock.lockfiles], "notes": list(self.recipe.notes)}

    def bundle_flavour(self, settings, baseline):
        """``settings`` for this recipe's bundles (see :mod:`gen09_core.mutate.bundle_command`)."""
        from gen09_core.mutate.bundle_command import CommandFlavour, adaptations

        return evolve(settings, flavour=CommandFlavour(self.lock, dict(baseline.files)),
                      adaptations=adaptations(self.lock), base_image=self.lock.image)


def prepare(profile, recipe: CommandRecipe, work: Path, pristine: Path) -> CommandEnvironment:
    """Check the toolchain, run the setup in ``pristine`` (once), and describe the jobs."""
    work = Path(work).resolve()
    missing = missing_tools(recipe.tools)
    if missing:
        raise EnvironmentFailure(f"the {recipe.ecosystem} toolchain is missing: {', '.join(missing)} "
                                 "not on PATH")
    runner_dir = install_runner(work / "runner")
    record = work / RECORD
    if (work / READY).exists() and record.exists():
        lock = ToolchainLock.parse(json.loads(record.read_text(encoding="utf-8"))["toolchain"])
    else:
        output = work / "setup-output.txt"
        while True:  # each retry changes what it retries for, once
            try:
                run_setup(recipe.setup, Path(pristine), {**recipe.env}, output)
                break
            except EnvironmentFailure:
                said = output.read_text(encoding="utf-8", errors="replace") if output.is_file() else ""
                retried = node.peers_allowed(recipe, said) or node.lock_refreshed(recipe, said)
                if retried is None:
                    raise
                recipe = retried
        said = output.read_text(encoding="utf-8", errors="replace") if output.is_file() else ""
        if recipe.ecosystem == "node" and (note := node.engine_warnings(said)):
            recipe = evolve(recipe, notes=(*recipe.notes, note))
        lock = capture(recipe, Path(pristine))
        record.write_text(json.dumps({"toolchain": lock.render()}, indent=1) + "\n", encoding="utf-8")
        (work / READY).write_text("ok\n")
    test_env = CommandEnv(recipe.test, recipe.report, str(runner_dir), recipe.ecosystem, dict(lock.env),
                          tuple(recipe.linked), tuple(recipe.build_dirs),
                          limit_memory=recipe.ecosystem not in UNBOUNDED)
    return CommandEnvironment(test_env, lock, recipe)


def run_setup(commands, folder: Path, env: dict, output: Path, timeout_sec: float = SETUP_TIMEOUT) -> None:
    """Run each setup command in ``folder``; ``EnvironmentFailure`` naming the first that fails."""
    for command in commands:
        done = run_limited(["bash", "-c", command], folder, clean_env(None, **env), timeout_sec, output)
        if done.status != "ok" or done.returncode != 0:
            why = "timed out" if done.status == "timeout" else f"exit {done.returncode}"
            said = output.read_text(encoding="utf-8", errors="replace").splitlines()  # all, not its tail
            cause = next((line.strip()[:300] for line in said if _CAUSE.search(line)), "")
            last = tail(done.output, 8, 800)
            raise EnvironmentFailure(f"setup step {command!r} failed ({why}): "
                                     f"{cause + ' … ' if cause and cause not in last else ''}{last} "
                                     f"(the whole output: {output})")


def run_stage(profile, recipe: CommandRecipe, work: Path, pristine: Path, journal) -> CommandEnvironment:
    """The stage with its journal events and receipt."""
    journal.event("environment", "started", profile.name,
                  detail={"detected": recipe.summary(), "notes": list(recipe.notes)})
    try:
        env = prepare(profile, recipe, work, pristine)
    except EnvironmentFailure as exc:
        journal.event("environment", "failed", profile.name, failure_class="infrastructure",
                      detail={"error": str(exc)})
        raise EnvironmentFailure(f"{exc} (detected: {recipe.summary()})") from None
    journal.event("environment", "done", profile.name, detail=env.describe())
    journal.receipt("environment", Path(work) / RECORD,
                    {"lock": env.lock.digest(), "detected": recipe.summary()})
    return env
