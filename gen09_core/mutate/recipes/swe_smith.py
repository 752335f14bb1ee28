"""The ``swe_smith`` recipe: SWE-smith's procedural bug generation as gen09's own stages.

One module per stage, each handing frozen data to the next::

    source.copy_source          the pristine work copy                       → files
    environment.environment_stage  venv + lock                               → Environment
    baseline.prime_stage        the pristine copy's bytecode, once (no test process recompiles it)
    baseline.baseline_stage     the suite twice; flaky out; per-test coverage → Measured
    generate_stage (here)       pack entities × pack mutators, apply + gate   → Generated
    validate.validate_stage     covering tests only                           → Validated
    confirm.confirm_stage       full F2P + P2P                                → Confirmed
    recheck.recheck_stage       accepted tasks' tests once more; flaky out    → Confirmed
    export.export_stage         issue + Harbor bundle + instances.jsonl       → Exported
    summary.summarize           outcomes, per modifier, costs                 → the summary

Every stage leaves an event and, for its artifacts, a receipt; re-running into the same
folder skips what is already recorded there (``records`` keeps each mutant's verdicts).
"""

from __future__ import annotations

import re
import time

from attrs import evolve, field, frozen

from gen09_core.errors import BadInput
from gen09_core.models import Entity, Span
from gen09_core.mutate.mutants import known_modifiers

NAME = "swe_smith"
VERSION = "1"
MIRRORS = ("SWE-bench/SWE-smith procedural bug generation (swesmith/bug_gen/procedural, Python "
           "modifiers) and its validation rules (F2P: passes on pristine, fails on the bug; "
           "P2P: passes on both; valid with >= 1 of each); re-implemented, no upstream code")
# a build's own files are no library code either: mde/ejs gave 8 of its 20 mutants to benchmark/bench-ejs.js,
# its jakefile.js and jakelib/, none of which its tests run
DEFAULT_EXCLUDE = ("test_*.py", "*_test.py", "tests/*", "test/*", "*/tests/*", "*/test/*", "testing/*",
                   "conftest.py", "setup.py", "docs/*", "doc/*", "examples/*", "example/*", "benchmarks/*",
                   "benchmark/*", "bench/*", "jakefile.js", "Jakefile", "jakelib/*", "[Gg]runtfile.js",
                   "[Gg]ulpfile.js", "*.config.[cm]js", "*.config.js", "*.config.ts", "karma.conf.js")


@frozen
class SweSmithOptions:
    """Options of ``[recipe.swe_smith]``."""

    modifiers: tuple[str, ...] = ()  # empty: every modifier the language pack offers
    selection: str = "coverage"  # "coverage" (covering tests only) | "full" (whole suite per mutant)
    confirm: str = "same_run"  # "same_run": go on to the full set in the same process | "separate"
    # | "coverage": no whole-suite run; stable tests that never ran a changed line are P2P
    include: tuple[str, ...] = ()  # globs of files to mutate (empty: every source file)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    org: str = "gen09"
    upstream_release: str = "unpinned"
    agent_timeout_sec: float = 1800.0
    verifier_timeout_sec: float = 600.0

    def __attrs_post_init__(self):
        if self.selection not in ("coverage", "full"):
            raise ValueError(f"selection must be 'coverage' or 'full', not {self.selection!r}")
        if self.confirm not in ("same_run", "separate", "coverage"):
            raise ValueError(f"confirm must be 'same_run', 'separate' or 'coverage', not {self.confirm!r}")
        if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", self.org):
            raise ValueError(f"org {self.org!r} must be lowercase letters, digits, '.', '_' or '-'")


@frozen
class SweSmithRecipe:
    """The recipe object the ``gen09_recipes`` hook returns."""

    name: str = NAME
    version: str = VERSION
    options: type = SweSmithOptions
    description: str = "Procedural mutations validated against the repository's own tests."
    extra: dict = field(factory=dict)

    def check(self, options: SweSmithOptions, registry) -> None:
        """Unknown modifier names are an error listing the known ones."""
        known = known_modifiers(registry)
        unknown = sorted(set(options.modifiers) - known)
        if unknown:
            raise BadInput(f"recipe.swe_smith.modifiers: unknown {', '.join(unknown)} "
                           f"(known: {', '.join(sorted(known))})")

    def run(self, ctx) -> dict:
        """Run the recipe; returns the summary."""
        return run(ctx)


RECIPE = SweSmithRecipe()


def run(ctx) -> dict:
    """The recipe's stages in order, each handing its frozen result to the next; returns the
    run summary."""
    from gen09_core.mutate.baseline import baseline_stage, prime_stage
    from gen09_core.mutate.config import source_files
    from gen09_core.mutate.confirm import confirm_stage
    from gen09_core.mutate.environment import environment_stage
    from gen09_core.mutate.export import export_stage, settings_for
    from gen09_core.mutate.recheck import recheck_stage
    from gen09_core.mutate.records import MutantRecords
    from gen09_core.mutate.source import copy_source
    from gen09_core.mutate.summary import Stages, summarize
    from gen09_core.mutate.validate import validate_stage
    from gen09_core.mutate.workspace import TestRunners, Workspace

    start = time.perf_counter()
    work = Workspace.at(ctx.out)
    files = copy_source(ctx, work)
    env = environment_stage(ctx, work)
    if hasattr(ctx.recipe, "ecosystem"):  # the recipe as the install left it (its notes: npm's warnings)
        ctx = evolve(ctx, recipe=env.recipe)
    shipped = source_files(work.pristine)  # with what the build generated (a _version.py)
    prime_stage(ctx, work, env.test_env)
    runners = TestRunners(env.test_env, work, ctx.config.limits)
    measured = baseline_stage(ctx, work, runners.pristine(), runners.fresh())
    runners.know_baseline(measured.baseline)
    generated = generate_stage(ctx, work, files, measured.baseline)
    records = MutantRecords(ctx.out / "mutants")
    try:
        validated = validate_stage(ctx, work, measured, generated.mutants, runners, records)
        confirmed = confirm_stage(ctx, work, measured, generated.mutants, validated, runners, records)
        confirmed = recheck_stage(ctx, work, measured, generated.mutants, confirmed, runners)
    finally:
        warm = runners.close()
    settings = settings_for(ctx, env, NAME, VERSION, MIRRORS)
    if hasattr(env, "bundle_flavour"):  # another ecosystem's bundle parts
        settings = env.bundle_flavour(settings, measured.baseline)
    exported = export_stage(ctx, work, settings, shipped, measured.baseline, generated.mutants,
                            confirmed.accepted)
    stages = Stages(env, measured, generated, validated, confirmed, exported, warm)
    return summarize(ctx, stages, NAME, VERSION, time.perf_counter() - start)


def generate_stage(ctx, work, files, baseline):
    """The gated mutants of ``files`` (never of a file the baseline ran as tests). Where the
    baseline measured coverage, a file no stable test ran a line of is not mutated: with
    coverage selection every mutant of it would be ``uncovered`` (xmltodict 0.13.0's
    ``ez_setup.py`` took 19 of 40 mutants); with ``selection = "full"`` too, so that one seed
    makes the same mutants whichever the selection (the validation benchmark compares them)."""
    from gen09_core.mutate.mutants import files_with_tests, generate

    options, journal = ctx.options, ctx.journal
    if hasattr(ctx.recipe, "ecosystem"):  # other runners' ids are no paths: the files their reports name
        test_files = set(baseline.files.values())
    else:
        test_files = files_with_tests(baseline.stable + baseline.flaky + baseline.failing)
    files = list(files)
    if baseline.coverage:
        never_run = {rel for rel in files if rel not in baseline.coverage and rel not in test_files
                     and ctx.registry.language_of(rel)}
        files = [rel for rel in files if rel not in never_run]
    else:
        never_run = set()

    def started(detail):
        journal.event("generate", "started", detail={**detail, "never_run_files": len(never_run)})

    result = generate(ctx.registry, work.pristine, files, options.modifiers, options.include, options.exclude,
                      test_files, ctx.config.seeds.mutate, ctx.config.limits.max_mutants, on_start=started)
    journal.event("generate", "done", detail={"mutants": len(result.mutants)})
    return evolve(result, never_run=len(never_run))


__all__ = ["RECIPE", "SweSmithOptions", "Entity", "Span"]
