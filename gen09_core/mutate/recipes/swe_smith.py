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

    # -- stages ---------------------------------------------------------------------------

    def run(self) -> dict:
        start = time.perf_counter()
        files = self._copy_source()
        env = self._environment()
        baseline = self._baseline(env)
        mutants = self._generate(files, baseline)
        verdicts = self._validate(env, baseline, mutants)
        accepted = self._confirm(env, baseline, mutants, verdicts)
        exported = self._export(files, baseline, mutants, accepted)
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
        from gen09_core.mutate.profiles import prepare

        self.journal.event("environment", "started", self.ctx.profile.name)
        try:
            env = prepare(self.ctx.profile, self.work, self.pristine)
        except EnvironmentFailure as exc:
            self.journal.event("environment", "failed", self.ctx.profile.name,
                               failure_class="infrastructure", detail={"error": str(exc)})
            raise
        self.journal.event("environment", "done", self.ctx.profile.name, detail={"python": env.python})
        self._env = env
        return env

    def _runner(self, env):
        from gen09_core.mutate.profiles import run_job

        return functools.partial(run_job, env)

    def _baseline(self, env):
        from gen09_core.mutate.validate import Baseline, run_baseline

        path = self.out / "baseline.json"
        if path.exists():
            data = json.loads(path.read_text(encoding="utf-8"))
            data["coverage"] = {f: {int(k): v for k, v in lines.items()}
                                for f, lines in data["coverage"].items()}
            baseline = Baseline(tuple(data["stable"]), tuple(data["flaky"]), tuple(data["failing"]),
                                data["coverage"], data["seconds"], tuple(data["runs"]),
                                {f: list(lines) for f, lines in data.get("import_lines", {}).items()})
            self.journal.event("baseline", "skipped", detail={"reason": "resumed"})
        else:
            self.journal.event("baseline", "started")
            self.scratch.mkdir(parents=True, exist_ok=True)
            baseline, runs = run_baseline(self.ctx.executor, self._runner(env), str(self.pristine),
                                          str(self.scratch), self.cfg.limits.timeout_sec,
                                          self.cfg.limits.memory_mb)
            bad = [r for r in runs if r.status != "ok"]
            if bad:
                self.journal.event("baseline", "failed", failure_class="infrastructure",
                                   detail={"runs": [asdict(r) for r in bad]})
                raise EnvironmentFailure(f"the pristine test suite did not run: {bad[0].status} "
                                         f"{bad[0].detail[-300:]}")
            record = asdict(baseline)
            path.write_text(json.dumps(record, sort_keys=True) + "\n", encoding="utf-8")
            self.journal.receipt("baseline", path, {"revision": self.cfg.source.revision})
        self.seconds["baseline"] = baseline.seconds
        self.journal.event("baseline", "done", detail={
            "stable": len(baseline.stable), "flaky": list(baseline.flaky), "failing": len(baseline.failing)})
        if not baseline.stable:
            self.journal.event("baseline", "failed", failure_class="source_eligibility",
                               detail={"reason": "no test passes twice on the pristine code"})
            raise SourceIneligible("the repository has no stable passing tests: nothing can validate a bug")
        return baseline

    def _generate(self, files, baseline) -> list[Mutant]:
        from gen09_core.mutate.mutants import generate

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
        return self.stats.setdefault(modifier, {
            "generated": 0, "duplicate": 0, "gated": 0, "uncovered": 0, "no_fail_to_pass": 0,
            "no_pass_to_pass": 0, "timeout": 0, "crash": 0, "valid": 0, "confirm_rejected": 0,
            "accepted": 0})

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
        from gen09_core.mutate.profiles import TestJob
        from gen09_core.mutate.validate import Verdict, changed_lines, judge, judge_same_run, select_tests

        selection = self.opts.selection
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
                                self.cfg.limits.timeout_sec, self.cfg.limits.memory_mb,
                                first=tests if same_run else None))
        total = len(jobs)
        self.journal.event("validate", "started", total=total, completed=0,
                           detail={"selection": selection, "decided_without_running": len(verdicts)})
        for done, run in enumerate(self.ctx.executor.run(self._runner(env), jobs), 1):
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
                                       "seconds": round(verdict.seconds, 3)})
        for mutant in mutants:
            verdict = verdicts[mutant.mutant_id]
            self.seconds["validation"] += verdict.seconds
            self.cpu["validation"] += verdict.cpu_seconds
            stat = self._stat(mutant.modifier)
            stat[verdict.status] = stat.get(verdict.status, 0) + 1
        valid = sum(v.status == "valid" for v in verdicts.values())
        self.journal.event("validate", "done", detail={"valid": valid})
        return verdicts

    def _confirm(self, env, baseline, mutants, verdicts) -> dict:
        from gen09_core.mutate.profiles import TestJob
        from gen09_core.mutate.validate import confirm

        accepted = {}
        valid = [m for m in mutants if verdicts[m.mutant_id].status == "valid"]
        jobs, records = [], {}
        for mutant in valid:
            record = self._load_record(mutant) or {}
            records[mutant.mutant_id] = record
            if "confirmed" in record:
                continue
            if self.opts.selection == "full":
                record["confirmed"] = record["verdict"]  # the full run already was the confirmation
                record["confirmation"] = "validation run covered every stable test"
                self._save_record(mutant, record)
                continue
            jobs.append(TestJob(f"confirm-{mutant.mutant_id}", str(self.pristine), str(self.scratch),
                                {mutant.path: mutant.text}, baseline.stable, False,
                                self.cfg.limits.timeout_sec, self.cfg.limits.memory_mb))
        self.journal.event("confirm", "started", total=len(jobs), completed=0)
        by_job = {f"confirm-{m.mutant_id}": m for m in valid}
        for done, run in enumerate(self.ctx.executor.run(self._runner(env), jobs), 1):
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
            if self.opts.selection == "coverage" and self.opts.confirm == "separate":
                self.seconds["confirmation"] += verdict.seconds
                self.cpu["confirmation"] += verdict.cpu_seconds
            stat = self._stat(mutant.modifier)
            if verdict.status == "valid":
                accepted[mutant.mutant_id] = verdict
            else:
                stat["confirm_rejected"] += 1
        ordered = sorted(accepted)
        if self.cfg.limits.max_tasks:
            ordered = ordered[: self.cfg.limits.max_tasks]
        for mid in ordered:
            self._stat(next(m.modifier for m in valid if m.mutant_id == mid))["accepted"] += 1
        self.journal.event("confirm", "done", detail={"accepted": len(ordered)})
        return {mid: accepted[mid] for mid in ordered}

    def _export(self, files, baseline, mutants, accepted) -> list[dict]:
        from gen09_core.mutate.bundle import BundleSettings, TaskSpec, entity_block, export, instance_record
        from gen09_core.mutate.issue import module_name, write_issue

        tasks_dir = self.out / "tasks"
        tasks_dir.mkdir(parents=True, exist_ok=True)
        profile = self.ctx.profile
        source = self.cfg.source
        rev = source.revision.split(":")[-1][:8]
        settings = BundleSettings(
            org=self.opts.org, recipe=NAME, recipe_version=VERSION, mirrors=MIRRORS,
            upstream_release=self.opts.upstream_release, source_repo=source.repo, source_name=source.name,
            revision=source.revision, base_image=profile.base_image, image_install=profile.image_install,
            pythonpath=profile.pythonpath, plugins=profile.plugins,
            pytest_version=self._env.pytest_version(), memory_mb=self.cfg.limits.memory_mb,
            verifier_timeout_sec=self.opts.verifier_timeout_sec,
            agent_timeout_sec=self.opts.agent_timeout_sec,
            adaptations=(
                "validation runs only the tests covering the mutated lines, then confirms with the full "
                "F2P + P2P set",
                "tests whose outcome differs between two pristine runs are excluded as flaky",
                "F2P test files are removed from the learner snapshot and restored by the verifier",
                "mutants are gated by gen09 apply + gate (parse, F821) before any test runs",
            ))
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
                    self.journal.event("export", "failed", task_id, failure_class="verifier",
                                       detail={"leaks": str(exc)})
                    continue
                self.journal.receipt("export", final, {"mutant": mid})
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
        mutant_seconds = self.seconds["validation"] + self.seconds["confirmation"]
        per_task = mutant_seconds / len(accepted) if accepted else None
        return {
            "recipe": NAME, "recipe_version": VERSION,
            "source": {"repo": self.cfg.source.name, "revision": self.cfg.source.revision},
            "seed": self.cfg.seeds.mutate, "selection": self.opts.selection,
            "baseline": {"stable": len(baseline.stable), "flaky": list(baseline.flaky),
                         "failing": len(baseline.failing)},
            "mutants": len(mutants), "valid": sum(v.status == "valid" for v in verdicts.values()),
            "accepted": len(accepted), "exported": len(exported),
            "per_modifier": {k: self.stats[k] for k in sorted(self.stats)},
            "runner_seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "runner_cpu_seconds": {k: round(v, 3) for k, v in self.cpu.items()},
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
    from gen09_core.mutate.validate import Verdict

    return Verdict(data["status"], tuple(data.get("fail_to_pass", ())), tuple(data.get("pass_to_pass", ())),
                   tuple(data.get("ran", ())), data.get("seconds", 0.0), data.get("detail", ""),
                   data.get("failures", {}), data.get("cpu_seconds", 0.0))


__all__ = ["RECIPE", "SweSmithOptions", "Entity", "Span"]
