"""The ``swe_smith`` recipe: SWE-smith's procedural bug generation as gen09's own stages.

source copy → environment → pristine baseline (twice; flaky out; per-test coverage) →
mutants (pack entities × pack mutators, seeded; each through gen09's apply + gate) →
validation (covering tests only) → confirmation (full F2P + P2P) → issue → Harbor bundle.
Every stage leaves an event and, for its artifacts, a receipt; re-running into the same
folder skips what is already recorded there.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import time
from pathlib import Path

from attrs import asdict, field, frozen

from gen09_core.errors import BadInput, EnvironmentFailure, Gen09Error
from gen09_core.models import Entity, Span
from gen09_core.mutate.mutants import Mutant, known_modifiers

NAME = "swe_smith"
VERSION = "1"
MIRRORS = ("SWE-bench/SWE-smith procedural bug generation (swesmith/bug_gen/procedural, Python "
           "modifiers) and its validation rules (F2P: passes on pristine, fails on the bug; "
           "P2P: passes on both; valid with >= 1 of each); re-implemented, no upstream code")
DEFAULT_EXCLUDE = ("test_*.py", "*_test.py", "tests/*", "test/*", "*/tests/*", "*/test/*", "testing/*",
                   "conftest.py", "setup.py", "docs/*", "doc/*", "examples/*", "benchmarks/*", "bench/*")
# every mutant sent to validation ends in exactly one of these
OUTCOME_COLUMNS = ("uncovered", "no_fail_to_pass", "no_pass_to_pass", "timeout", "crash", "confirm_rejected",
                   "over_task_cap", "export_failed", "exported")
TIMEOUT_FLOOR = 10.0  # seconds: a mutant's run may take this long beyond ...
TIMEOUT_FACTOR = 3.0  # ... this many times the slower pristine whole-suite run


class SourceIneligible(Gen09Error):
    """The repository cannot yield tasks (no stable passing tests): exit 1."""

    exit_code = 1


@frozen
class SweSmithOptions:
    """Options of ``[recipe.swe_smith]``."""

    modifiers: tuple[str, ...] = ()  # empty: every modifier the language pack offers
    selection: str = "coverage"  # "coverage" (covering tests only) | "full" (whole suite per mutant)
    confirm: str = "same_run"  # "same_run": go on to the full set in the same process | "separate"
    include: tuple[str, ...] = ()  # globs of files to mutate (empty: every source file)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    org: str = "gen09"
    upstream_release: str = "unpinned"
    agent_timeout_sec: float = 1800.0
    verifier_timeout_sec: float = 600.0

    def __attrs_post_init__(self):
        if self.selection not in ("coverage", "full"):
            raise ValueError(f"selection must be 'coverage' or 'full', not {self.selection!r}")
        if self.confirm not in ("same_run", "separate"):
            raise ValueError(f"confirm must be 'same_run' or 'separate', not {self.confirm!r}")
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
        return _Run(ctx).run()


RECIPE = SweSmithRecipe()


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "repo"


class _Run:
    def __init__(self, ctx):
        self.ctx = ctx
        self.cfg = ctx.config
        self.opts = ctx.options
        self.out = ctx.out
        self.work = ctx.out / "work"
        self.pristine = self.work / "pristine"
        self.scratch = self.work / "jobs"
        self.journal = ctx.journal
        self.stats: dict[str, dict[str, int]] = {}
        self.seconds = {"baseline": 0.0, "validation": 0.0, "confirmation": 0.0}
        self.cpu = {"validation": 0.0, "confirmation": 0.0}
        self.final: dict[str, tuple[str, str]] = {}  # mutant id -> (outcome column, reason)
        self._warm = None
        self.warm_stats: dict = {}
        self.runners: dict[str, int] = {}  # "warm" / "fresh: <reason>" -> mutant runs
        self.test_seconds = {"validation": 0.0, "confirmation": 0.0}

    # -- stages ---------------------------------------------------------------------------

    def run(self) -> dict:
        start = time.perf_counter()
        from gen09_core.mutate.config import source_files

        files = self._copy_source()
        env = self._environment()
        # command recipes record no per-test coverage: every mutant runs the whole suite
        self.selection = "full" if hasattr(env, "runner") else self.opts.selection
        shipped = source_files(self.pristine)  # with what the build generated (a _version.py)
        baseline = self._baseline(env)
        mutants = self._generate(files, baseline)
        try:
            verdicts = self._validate(env, baseline, mutants)
            accepted = self._confirm(env, baseline, mutants, verdicts)
        finally:
            if self._warm is not None:
                self._warm.close()
                self.warm_stats = self._warm.stats()
                self.seconds["warm_startup"] = self.warm_stats["startup_seconds"]
                self.cpu["warm_overhead"] = self.warm_stats["overhead_cpu_seconds"]
        exported = self._export(shipped, baseline, mutants, accepted)
        return self._summary(baseline, mutants, verdicts, accepted, exported, time.perf_counter() - start)

    def _copy_source(self) -> list[str]:
        from gen09_core.mutate.config import source_files

        marker = self.work / ".pristine-ready"
        repo = Path(self.cfg.source.repo)
        files = source_files(repo)
        if not marker.exists():
            shutil.rmtree(self.pristine, ignore_errors=True)
            for rel in files:
                target = self.pristine / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(repo / rel, target)
            marker.write_text("ok\n")
            self.journal.receipt("source", self.pristine, {"revision": self.cfg.source.revision})
        self.journal.event("source", "done", self.cfg.source.name, detail={"files": len(files)})
        return files

    def _environment(self):
        from gen09_core.mutate.environment import prepare

        recipe = self.ctx.recipe
        if hasattr(recipe, "ecosystem"):  # another ecosystem's command recipe
            from gen09_core.mutate.environment_command import run_stage

            self._env = run_stage(self.ctx.profile, recipe, self.work, self.pristine, self.journal)
            return self._env
        self.journal.event("environment", "started", self.ctx.profile.name,
                           detail={"detected": recipe.summary(), "notes": list(recipe.notes)})
        try:
            env = prepare(self.ctx.profile, recipe, self.work, self.pristine)
        except EnvironmentFailure as exc:
            self.journal.event("environment", "failed", self.ctx.profile.name,
                               failure_class="infrastructure", detail={"error": str(exc)})
            raise EnvironmentFailure(f"{exc} (detected: {recipe.summary()})") from None
        self.journal.event("environment", "done", self.ctx.profile.name, detail={
            "python": env.lock.python, "packages": len(env.lock.packages), "project": list(env.lock.project),
            "pytest_plugins": list(env.lock.plugins), "pythonpath": list(env.test_env.pythonpath),
            "dropped_addopts": list(recipe.dropped_options)})
        self.journal.receipt("environment", self.work / "environment.json",
                             {"lock": env.lock.digest(), "detected": recipe.summary()})
        self._env = env
        return env

    def _runner(self, env, warm: bool = False):
        """The job runner: a fresh pytest process per job, or (mutant runs with
        ``limits.runner = "warm"``) a warm worker that forks per job."""
        from gen09_core.testrun.jobs import run_job

        if hasattr(env, "runner"):
            return env.runner()
        if not warm or self.cfg.limits.runner != "warm":
            return functools.partial(run_job, env.test_env)
        if self._warm is None:
            from gen09_core.testrun.warm import WarmRunner

            self._warm = WarmRunner(env.test_env, self.pristine, self.scratch,
                                    self.cfg.limits.baseline_timeout_sec)
        return self._warm

    def _baseline(self, env):
        from gen09_core.mutate.validate import load_baseline, run_baseline

        path = self.out / "baseline.json"
        if path.exists():
            baseline = load_baseline(path)
            self.journal.event("baseline", "skipped", detail={"reason": "resumed"})
        else:
            self.journal.event("baseline", "started")
            self.scratch.mkdir(parents=True, exist_ok=True)
            baseline, runs = run_baseline(self.ctx.executor, self._runner(env), str(self.pristine),
                                          str(self.scratch), self.cfg.limits.baseline_timeout_sec,
                                          self.cfg.limits.memory_mb)
            bad = [r for r in runs if r.status != "ok"]
            if bad and not (bad[0].status == "crash" and not baseline.stable):
                self.journal.event("baseline", "failed", failure_class="infrastructure",
                                   detail={"runs": [asdict(r) for r in bad]})
                raise EnvironmentFailure(f"the pristine test suite did not run: {bad[0].status} "
                                         f"{bad[0].detail[-300:]}")
            if baseline.stable:
                path.write_text(json.dumps(asdict(baseline), sort_keys=True) + "\n", encoding="utf-8")
                self.journal.receipt("baseline", path, {"revision": self.cfg.source.revision})
        self.seconds["baseline"] = baseline.seconds
        self.journal.event("baseline", "done", detail={
            "stable": len(baseline.stable), "flaky": list(baseline.flaky), "failing": len(baseline.failing),
            "collection_errors": list(baseline.problems)})
        if not baseline.stable:
            message = self._no_stable_tests(baseline)
            self.journal.event("baseline", "failed", failure_class="source_eligibility",
                               detail={"reason": message})
            raise SourceIneligible(message)
        limits = self.cfg.limits
        slowest = max(baseline.run_seconds or (baseline.seconds,))
        if limits.timeout_sec is not None:
            self.timeout, self.timeout_source = limits.timeout_sec, "limits.timeout_sec"
        else:
            self.timeout = round(TIMEOUT_FLOOR + TIMEOUT_FACTOR * slowest, 1)
            self.timeout_source = (f"derived: {TIMEOUT_FLOOR:g} s + {TIMEOUT_FACTOR:g} x {slowest:.1f} s "
                                   "(the slower pristine run); set limits.timeout_sec to override")
        return baseline

    def _no_stable_tests(self, baseline) -> str:
        """One message: what happened, the first error, what was detected, what fixes it."""
        if hasattr(self._env, "no_stable_tests"):
            return self._env.no_stable_tests(baseline, self.ctx.profile.name)
        counts = f"{len(baseline.failing)} failing or skipped, {len(baseline.flaky)} flaky"
        problem = next(iter(baseline.problems), "")
        profile = self.ctx.profile.name if self.ctx.profile.name != "python-pytest" else "repo"
        setup = (f'put profile = "{profile}" and [profiles.{profile}] base = "python-pytest" in a --config '
                 "file, then")
        if "No module named" in problem:
            missing = problem.split("No module named", 1)[1].strip(" '\"").split(".")[0]
            if (self.pristine / missing).exists() or (self.pristine / "src" / missing).exists():
                fix = f"{setup} set profiles.{profile}.pythonpath to the folder that holds {missing!r}"
            else:
                fix = (f"{setup} install the package that provides {missing!r}: profiles.{profile}.install = "
                       f"[\"python -m pip install . <package>\"]")
        elif "fixture" in problem and "not found" in problem:
            fix = f"{setup} install the pytest plugin that provides it (profiles.{profile}.install)"
        elif not baseline.stable and not baseline.failing and not baseline.flaky:
            fix = f"{setup} point profiles.{profile}.test_paths at the tests (no test was collected)"
        else:
            fix = f"{setup} adjust profiles.{profile}.install / pythonpath / pytest_args"
        first = f" First error: {problem}." if problem else ""
        return (f"the repository has no stable passing tests ({counts}), so nothing can validate a bug."
                f"{first} Detected: {self.ctx.recipe.summary()}. To fix: {fix}.")

    def _generate(self, files, baseline) -> list[Mutant]:
        from gen09_core.mutate.mutants import generate

        if hasattr(self._env, "runner"):  # ids of other runners are no paths: the files their reports name
            test_files = set(baseline.files.values())
        else:
            test_files = {t.split("::")[0] for t in baseline.stable + baseline.flaky + baseline.failing}
        result = generate(self.ctx.registry, self.pristine, files, self.opts.modifiers, self.opts.include,
                          self.opts.exclude, test_files, self.cfg.seeds.mutate, self.cfg.limits.max_mutants,
                          on_start=lambda detail: self.journal.event("generate", "started", detail=detail))
        for name, counts in result.per_modifier().items():
            stat = self._stat(name)
            for key, value in counts.items():
                stat[key] = stat.get(key, 0) + value
        self.journal.event("generate", "done", detail={"mutants": len(result.mutants)})
        return list(result.mutants)

    def _stat(self, modifier: str) -> dict:
        return self.stats.setdefault(modifier, {"generated": 0, "duplicate": 0, "gated": 0})

    def _record_path(self, mutant: Mutant) -> Path:
        return self.out / "mutants" / f"{mutant.mutant_id}.json"

    def _load_record(self, mutant: Mutant) -> dict | None:
        path = self._record_path(mutant)
        if path.exists():
            return json.loads(path.read_text(encoding="utf-8"))
        return None

    def _save_record(self, mutant: Mutant, record: dict) -> None:
        path = self._record_path(mutant)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)

    def _validate(self, env, baseline, mutants) -> dict:
        from gen09_core.mutate.validate import Verdict, changed_lines, judge, judge_same_run, select_tests
        from gen09_core.testrun.jobs import TestJob

        selection = self.selection
        verdicts: dict[str, Verdict] = {}
        jobs, todo = [], {}
        by_id = {m.mutant_id: m for m in mutants}
        for mutant in mutants:
            record = self._load_record(mutant)
            if record and "verdict" in record:
                verdicts[mutant.mutant_id] = _verdict(record["verdict"])
                continue
            pristine_text = (self.pristine / mutant.path).read_text(encoding="utf-8")
            lines = changed_lines(pristine_text, mutant.text)
            if selection == "coverage":
                tests = select_tests(baseline, mutant.path, lines, mutant.kind, mutant.span)
            else:
                tests = baseline.stable
            if not tests:
                verdict = Verdict("uncovered", detail=f"no stable test runs lines {lines[:5]}")
                verdicts[mutant.mutant_id] = verdict
                self._save_record(mutant, {"mutant": _mutant_dict(mutant), "verdict": asdict(verdict)})
                continue
            todo[mutant.mutant_id] = tests
            same_run = selection == "coverage" and self.opts.confirm == "same_run"
            jobs.append(TestJob(mutant.mutant_id, str(self.pristine), str(self.scratch),
                                {mutant.path: mutant.text}, baseline.stable if same_run else tests, False,
                                self.timeout, self.cfg.limits.memory_mb,
                                first=tests if same_run else None))
        total = len(jobs)
        self.journal.event("validate", "started", total=total, completed=0,
                           detail={"selection": selection, "decided_without_running": len(verdicts)})
        for done, run in enumerate(self.ctx.executor.run(self._runner(env, warm=True), jobs), 1):
            mutant = by_id[run.job_id]
            record = {"mutant": _mutant_dict(mutant)}
            if selection == "coverage" and self.opts.confirm == "same_run":
                verdict, agrees = judge_same_run(baseline, run, todo[run.job_id])
                if agrees is not None:
                    record.update(confirmed=asdict(verdict), selection_agrees=agrees,
                                  confirmation="same run: every stable test ran after a covering test failed")
            else:
                verdict = judge(baseline, run, todo[run.job_id], selection)
            verdicts[mutant.mutant_id] = verdict
            record["verdict"] = asdict(verdict)
            self._save_record(mutant, record)
            klass = "infrastructure" if verdict.status == "crash" else None
            self.journal.event("validate", "progress", mutant.mutant_id, failure_class=klass,
                               total=total, completed=done,
                               detail={"status": verdict.status, "tests": len(verdict.ran),
                                       "seconds": round(verdict.seconds, 3), "runner": verdict.runner})
        for mutant in mutants:
            verdict = verdicts[mutant.mutant_id]
            self.seconds["validation"] += verdict.seconds
            self.cpu["validation"] += verdict.cpu_seconds
            self.test_seconds["validation"] += verdict.test_seconds
            self.runners[verdict.runner] = self.runners.get(verdict.runner, 0) + 1
            if verdict.status != "valid":
                self.final[mutant.mutant_id] = (verdict.status, verdict.detail[:300])
        valid = sum(v.status == "valid" for v in verdicts.values())
        self.journal.event("validate", "done", detail={"valid": valid})
        return verdicts

    def _confirm(self, env, baseline, mutants, verdicts) -> dict:
        from gen09_core.mutate.validate import confirm
        from gen09_core.testrun.jobs import TestJob

        accepted = {}
        valid = [m for m in mutants if verdicts[m.mutant_id].status == "valid"]
        jobs, records = [], {}
        for mutant in valid:
            record = self._load_record(mutant) or {}
            records[mutant.mutant_id] = record
            if "confirmed" in record:
                continue
            if self.selection == "full":
                record["confirmed"] = record["verdict"]  # the full run already was the confirmation
                record["confirmation"] = "validation run covered every stable test"
                self._save_record(mutant, record)
                continue
            jobs.append(TestJob(f"confirm-{mutant.mutant_id}", str(self.pristine), str(self.scratch),
                                {mutant.path: mutant.text}, baseline.stable, False,
                                self.timeout, self.cfg.limits.memory_mb))
        self.journal.event("confirm", "started", total=len(jobs), completed=0)
        by_job = {f"confirm-{m.mutant_id}": m for m in valid}
        for done, run in enumerate(self.ctx.executor.run(self._runner(env, warm=True), jobs), 1):
            mutant = by_job[run.job_id]
            verdict = confirm(baseline, run)
            record = records[mutant.mutant_id]
            record["confirmed"] = asdict(verdict)
            first = verdicts[mutant.mutant_id]
            record["selection_agrees"] = sorted(first.fail_to_pass) == sorted(verdict.fail_to_pass)
            self._save_record(mutant, record)
            self.journal.event("confirm", "progress", mutant.mutant_id, total=len(jobs), completed=done,
                               detail={"status": verdict.status,
                                       "selection_agrees": record["selection_agrees"]})
        for mutant in valid:
            record = records[mutant.mutant_id]
            verdict = _verdict(record["confirmed"])
            if self.selection == "coverage" and self.opts.confirm == "separate":
                self.seconds["confirmation"] += verdict.seconds
                self.cpu["confirmation"] += verdict.cpu_seconds
                self.test_seconds["confirmation"] += verdict.test_seconds
            if verdict.status == "valid":
                accepted[mutant.mutant_id] = verdict
            else:
                self.final[mutant.mutant_id] = ("confirm_rejected", f"confirmation: {verdict.status}")
        ordered = sorted(accepted)
        if self.cfg.limits.max_tasks:
            for mid in ordered[self.cfg.limits.max_tasks:]:
                self.final[mid] = ("over_task_cap", f"limits.max_tasks = {self.cfg.limits.max_tasks}")
            ordered = ordered[: self.cfg.limits.max_tasks]
        self.journal.event("confirm", "done", detail={"accepted": len(ordered)})
        return {mid: accepted[mid] for mid in ordered}

    def _export(self, files, baseline, mutants, accepted) -> list[dict]:
        from gen09_core.entities import module_name
        from gen09_core.mutate.bundle import BundleSettings, TaskSpec, entity_block, export, instance_record
        from gen09_core.mutate.issue import write_issue

        tasks_dir = self.out / "tasks"
        tasks_dir.mkdir(parents=True, exist_ok=True)
        profile = self.ctx.profile
        source = self.cfg.source
        rev = source.revision.split(":")[-1][:8]
        settings = BundleSettings(
            org=self.opts.org, recipe=NAME, recipe_version=VERSION, mirrors=MIRRORS,
            upstream_release=self.opts.upstream_release, source_repo=source.repo, source_name=source.name,
            revision=source.revision, lock=self._env.lock, test_env=self._env.test_env,
            base_image=profile.base_image, image_install=profile.image_install,
            memory_mb=self.cfg.limits.memory_mb, verifier_timeout_sec=self.opts.verifier_timeout_sec,
            agent_timeout_sec=self.opts.agent_timeout_sec,
            adaptations=(
                "validation runs only the tests covering the mutated lines, then confirms with the full "
                "F2P + P2P set",
                "tests whose outcome differs between two pristine runs are excluded as flaky",
                "F2P test files are removed from the learner snapshot and restored by the verifier",
                "mutants are gated by gen09 apply + gate (parse, F821) before any test runs",
                "the image installs exactly the validated environment's lock (environment/gen09.lock)",
            ))
        if hasattr(self._env, "bundle_flavour"):
            settings = self._env.bundle_flavour(settings, baseline)
        all_tests = list(baseline.stable + baseline.flaky + baseline.failing)
        by_id = {m.mutant_id: m for m in mutants}
        exported, instances = [], []
        self.journal.event("export", "started", total=len(accepted), completed=0)
        for number, (mid, verdict) in enumerate(sorted(accepted.items()), 1):
            mutant = by_id[mid]
            pristine_text = (self.pristine / mutant.path).read_text(encoding="utf-8")
            record = self._load_record(mutant) or {}
            failures = (record.get("confirmed") or record.get("verdict") or {}).get("failures") or {}
            issue = write_issue(module_name(mutant.path), failures, list(verdict.fail_to_pass), all_tests,
                                mutant.diff, self.pristine)
            short = mid.rsplit("__", 1)[-1]
            task_id = f"{_slug(source.name)}.{mutant.modifier.replace('_', '-')}-{short}"
            owner = source.name.replace("/", "__")
            spec = TaskSpec(task_id, f"{owner}.{rev}.func_pm_{mutant.modifier}__{short}", mutant.modifier,
                            mutant.entity, mutant.path, pristine_text, mutant.text, mutant.diff,
                            tuple(verdict.fail_to_pass), tuple(verdict.pass_to_pass), issue,
                            self.cfg.seeds.mutate, mutant.complexity)
            final = tasks_dir / task_id
            if not (final / "task.toml").exists():
                try:
                    export(spec, settings, self.pristine, files, tasks_dir,
                           entity_block(pristine_text, mutant.span))
                except ValueError as exc:
                    self.final[mid] = ("export_failed", f"leak scan: {exc}"[:300])
                    self.journal.event("export", "failed", task_id, failure_class="verifier",
                                       detail={"leaks": str(exc)})
                    continue
                self.journal.receipt("export", final, {"mutant": mid})
            self.final[mid] = ("exported", task_id)
            instances.append(instance_record(spec, settings, f"gen09/{_slug(source.name)}:{rev}"))
            exported.append({"task": task_id, "mutant": mid, "modifier": mutant.modifier})
            self.journal.event("export", "progress", task_id, total=len(accepted), completed=number)
        path = self.out / "instances.jsonl"
        path.write_text("".join(json.dumps(i, sort_keys=True) + "\n" for i in instances), encoding="utf-8")
        self.journal.receipt("instances", path)
        self.journal.event("export", "done", detail={"exported": len(exported)})
        return exported

    def _summary(self, baseline, mutants, verdicts, accepted, exported, wall) -> dict:
        runner = sum(self.seconds.values())
        mutant_seconds = sum(v for k, v in self.seconds.items() if k != "baseline")  # warm start-up too
        per_task = mutant_seconds / len(accepted) if accepted else None
        per_modifier = {}
        for name in sorted(self.stats):
            row = dict(self.stats[name])
            row.update(dict.fromkeys(OUTCOME_COLUMNS, 0))
            per_modifier[name] = row
        reasons: dict = {}
        for mutant in mutants:
            status, why = self.final[mutant.mutant_id]
            per_modifier[mutant.modifier][status] += 1
            if status in ("timeout", "crash", "export_failed", "confirm_rejected", "over_task_cap"):
                reasons.setdefault(status, []).append({"mutant": mutant.mutant_id, "reason": why})
        totals = {key: sum(row.get(key, 0) for row in per_modifier.values())
                  for key in ("generated", "duplicate", "gated", *OUTCOME_COLUMNS)}
        totals["gate_dropped"] = sum(v for row in per_modifier.values() for k, v in row.items()
                                     if k.startswith("gate_"))
        return {
            "recipe": NAME, "recipe_version": VERSION,
            "source": {"repo": self.cfg.source.name, "revision": self.cfg.source.revision},
            "seed": self.cfg.seeds.mutate, "selection": self.selection,
            "environment": self._env.describe() | {"detected": self.ctx.recipe.summary()}
            if hasattr(self._env, "describe") else
            {"detected": self.ctx.recipe.summary(), "python": self._env.lock.python,
             "packages": len(self._env.lock.packages), "pytest_plugins": list(self._env.lock.plugins)},
            "baseline": {"stable": len(baseline.stable), "flaky": list(baseline.flaky),
                         "failing": len(baseline.failing), "collection_errors": list(baseline.problems)},
            "timeout_sec": self.timeout, "timeout_source": self.timeout_source,
            "mutants": len(mutants), "valid": sum(v.status == "valid" for v in verdicts.values()),
            "accepted": len(accepted), "exported": len(exported),
            "outcomes": {key: totals[key] for key in OUTCOME_COLUMNS}, "totals": totals,
            "failures": reasons,
            "per_modifier": per_modifier,
            "runner_seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "runner_cpu_seconds": {k: round(v, 3) for k, v in self.cpu.items()},
            "test_seconds": {k: round(v, 3) for k, v in self.test_seconds.items()},
            "runner": self.cfg.limits.runner, "runs_by_runner": dict(sorted(self.runners.items())),
            "warm_workers": self.warm_stats,
            "runner_seconds_per_accepted_task": round(per_task, 3) if per_task is not None else None,
            "wall_seconds": round(wall, 3),
            "cost": {"test_runner_seconds": round(runner, 3), "model_calls": 0, "model_cost_usd": 0.0,
                     "note": "no model role is configured; runner seconds include rejected mutants"},
            "tasks": [e["task"] for e in exported],
        }


def _mutant_dict(mutant: Mutant) -> dict:
    data = asdict(mutant)
    data.pop("text")
    return data


def _verdict(data: dict):
    import cattrs

    from gen09_core.mutate.validate import Verdict

    return cattrs.structure(data, Verdict)


__all__ = ["RECIPE", "SweSmithOptions", "Entity", "Span"]
