"""Running the A/B protocol: generate per task and arm through the one metered client,
apply + gate + dedup, validate each distinct candidate once, then score."""

from __future__ import annotations

import hashlib
from functools import partial

from attrs import evolve

from gen09_core.ab.arms import (
    Arm,
    Forwarded,
    TaskResult,
    representation_for,
    select,
    to_forward,
)
from gen09_core.ab.tasks import Task
from gen09_core.ab.validate import ValidationJob, run_validation, validate
from gen09_core.errors import BadInput
from gen09_core.mutate.executor import LocalExecutor


def run_arms(tasks: list[Task], arm_list: list[Arm], client, registry, runners: dict, timeout: float,
             workers: int = 2, progress=None, settings=None, scratch=None,
             executor=None) -> dict[str, list[TaskResult]]:
    """Every arm on every task; ``progress(kind, done, total)`` is told about each step.
    ``runners`` (task id → ``validate.Runner``) say where each task's tests run, each run
    bounded by ``timeout`` seconds. ``settings`` (``generate.Settings``) fixes output mode
    and token cap; each arm sets its own N and temperature. With a ``scratch`` folder, a
    SWE-bench task's candidates run on warm workers (collect once, fork per candidate), and
    the pytest runs of Python bundle tasks' test.sh on the warm service. An
    ``executor`` other than the local one (the Ray one) runs every validation as its job
    instead, each in a fresh process."""
    from gen09_core import generate, intent
    from gen09_core.pipeline import run_batch

    tell = progress or (lambda *args: None)
    generated = []
    total = len(tasks) * len(arm_list)
    for task in tasks:
        for arm in arm_list:
            try:
                package = intent.assemble(task.upstream(arm.intent), task.repo, registry, task.id)
            except BadInput as exc:
                raise BadInput(f"task {task.id}: {exc}") from None
            rep = representation_for(arm, registry, package.target)
            arm_settings = evolve(settings or generate.Settings(), n=arm.n, temperature=arm.temperature)
            gen = generate.generate(package, rep, client, arm_settings, task.repo, registry,
                                    bare=not arm.intent)
            report = None
            if gen.batch is not None:
                report = run_batch(gen.batch, task.repo, registry, tolerant=arm.tolerant)
            generated.append((task, arm, gen, report))
            tell("generate", len(generated), total)
    jobs = {}
    for task, arm, _, report in generated:
        for outcome, _ in to_forward(arm, report) if report is not None else ():
            jobs.setdefault(_key(task, outcome.applied), (task, outcome.applied))
    verdicts = {}
    remote = executor is not None and not isinstance(executor, LocalExecutor)
    if remote:
        work = [ValidationJob(key, task, runners[task.id], tuple(applied.files))
                for key, (task, applied) in jobs.items()]
        run_one = partial(run_validation, timeout=timeout)
        for number, (key, verdict) in enumerate(executor.run(run_one, work), 1):
            verdicts[key] = verdict
            tell("validate", number, len(work))
    by_task: dict[str, dict] = {}
    for key, job in () if remote else jobs.items():
        by_task.setdefault(key[0], {})[key] = job
    service = bundle_service([t for t in tasks if t.id in by_task], runners, timeout, scratch)
    try:
        for task_jobs in by_task.values():  # a task's warm workers end before the next task's start
            task = next(iter(task_jobs.values()))[0]
            runner = runners[task.id]
            warm = service if task.bundle is not None else warm_runner(runner, scratch)
            try:
                validated = LocalExecutor(workers).run(partial(_validate_one, task, runner, timeout, warm),
                                                       task_jobs.items())
                for key, verdict in validated:
                    verdicts[key] = verdict
                    tell("validate", len(verdicts), len(jobs))
            finally:
                if warm is not None and warm is not service:
                    warm.close()
    finally:
        if service is not None:
            service.close()
    results: dict[str, list[TaskResult]] = {arm.name: [] for arm in arm_list}
    for task, arm, gen, report in generated:
        results[arm.name].append(_score(task, arm, gen, report, verdicts))
    return results


def _validate_one(task, runner, timeout, warm, item):
    key, (_, applied) = item
    return key, validate(task, runner, applied.files, timeout, warm=warm)


def bundle_service(tasks, runners, timeout, scratch):
    """The warm service for the bundle tasks' test.sh pytest runs (``verify_warm``), or None
    (no bundle task of Python, no ``scratch``, no fork here)."""
    from gen09_core.mutate.verify_warm import WarmVerify, available

    bundles = [t.bundle for t in tasks if t.bundle is not None and runners[t.id].setup is None]
    if scratch is None or not bundles or available():
        return None
    try:
        return WarmVerify(bundles, timeout)
    except OSError:  # the service cannot start (e.g. a socket path too long): every run is fresh
        return None


def warm_runner(runner, scratch):
    """A warm runner over a SWE-bench task's prepared base folder, or None (a bundle task,
    or no ``scratch``): candidates it cannot carry run fresh, with the reason kept."""
    if scratch is None or runner.test_env is None:
        return None
    from pathlib import Path

    from gen09_core.testrun.warm import WarmRunner

    return WarmRunner(runner.test_env, runner.base, Path(scratch) / f"warm-{runner.base.parent.name}")


def _score(task, arm, gen, report, verdicts) -> TaskResult:
    from gen09_core import llm

    usage = llm.usage_summary(gen.calls)
    if report is None:
        fmt = gen.representation.format if gen.representation else None
        return TaskResult(task.id, fmt, 0, 0, 0, (), None, usage["prompt_tokens"], usage["completion_tokens"],
                          usage["cost_usd"], gen.regenerate, gen.failure or gen.reason)
    forwarded = tuple(Forwarded(o.id, o.digest or f"ungated:{o.id}", votes, verdicts[_key(task, o.applied)])
                      for o, votes in to_forward(arm, report))
    counts = report.summary()
    return TaskResult(task.id, gen.representation.format, counts["total"], report.applied_and_parsed(),
                      counts["valid"], forwarded, select(forwarded), usage["prompt_tokens"],
                      usage["completion_tokens"], usage["cost_usd"], gen.regenerate)


def _key(task: Task, applied) -> tuple[str, str]:
    digest = hashlib.sha256()
    for changed in sorted(applied.files, key=lambda f: f.path):
        digest.update(changed.path.encode() + b"\0" + changed.new_bytes() + b"\0")
    return task.id, digest.hexdigest()
