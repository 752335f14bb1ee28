"""The harness checks itself before any arm runs: every sampled task is validated unchanged
(nop: it must not resolve) and with its reference fix (gold: it must resolve). A task that
fails either check is excluded from the arms; when more than a tenth of the sample fails,
``gen09 ab`` reports no numbers at all (exit 3), naming the first failure.

A self-check run whose test runner could not measure — a collection error, test ids that
were never reported, a crash, an environment that cannot be built — is an *environment*
failure and is reported as one, never as "not resolved".
"""

from __future__ import annotations

import time
from pathlib import Path

from attrs import frozen

from gen09_core.ab.tasks import Task
from gen09_core.ab.validate import Runner, Verdict, prepare_runner, validate
from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.mutate.executor import LocalExecutor

MAX_FAILING = 0.10  # more than this share of failing self-checks: no numbers are reported
TIMEOUT_FLOOR = 10.0  # a candidate's run may take this long beyond ...
TIMEOUT_FACTOR = 3.0  # ... this many times the slowest self-check run


@frozen
class Check:
    """One task's self-check: ``status`` is ``ok``, ``environment``, ``gold_fails`` or
    ``nop_resolves``, with the reason and both verdicts."""

    task: str
    status: str
    reason: str
    nop: Verdict | None
    gold: Verdict | None
    seconds: float
    environment: str = ""

    def as_dict(self) -> dict:
        """JSON form (the test output tail of a failing run included)."""
        def verdict(v: Verdict | None):
            if v is None:
                return None
            return {"resolved": v.resolved, "regression_ok": v.regression_ok, "seconds": round(v.seconds, 3),
                    "problem": v.problem, "not_passed": list(v.not_passed[:20]),
                    **({"tail": v.tail} if self.status != "ok" else {})}

        return {"task": self.task, "status": self.status, "reason": self.reason,
                "environment": self.environment, "nop": verdict(self.nop), "gold": verdict(self.gold),
                "seconds": round(self.seconds, 3)}


def check_task(task: Task, python: str | None, work: Path, timeout: float) -> tuple[Check, Runner | None]:
    """Prepare the task's runner and run its nop and gold checks."""
    start = time.perf_counter()
    try:
        runner = prepare_runner(task, python, work)
    except (BadInput, EnvironmentFailure) as exc:
        return Check(task.id, "environment", f"the test environment could not be prepared: {exc}", None, None,
                     time.perf_counter() - start), None
    gold = validate(task, runner, (), timeout, gold=True)
    nop = validate(task, runner, (), timeout)
    status, reason = classify(nop, gold)
    return Check(task.id, status, reason, nop, gold, time.perf_counter() - start, runner.source), runner


def classify(nop: Verdict, gold: Verdict) -> tuple[str, str]:
    """``(status, reason)`` of a self-check from its two verdicts."""
    if gold.problem:
        return "environment", f"the reference fix's run could not measure: {gold.problem}"
    if not gold.resolved:
        return "gold_fails", (f"with the reference fix {len(gold.not_passed)} expected test(s) still fail: "
                              + ", ".join(gold.not_passed[:3]))
    if nop.resolved:
        return "nop_resolves", "the unchanged task already passes every expected test"
    if nop.problem.startswith("crash"):
        return "environment", f"the unchanged task's run crashed: {nop.problem}"
    return "ok", ""


def self_check(tasks: list[Task], python: str | None, work: Path, timeout: float, workers: int = 2,
               progress=None) -> tuple[list[Check], dict]:
    """Check every task (``workers`` at a time); returns the checks in task order and the
    runners of the tasks that passed."""
    tell = progress or (lambda *args: None)
    results: dict[str, tuple] = {}
    checked = LocalExecutor(workers).run(lambda t: (t.id, check_task(t, python, work, timeout)), tasks)
    for number, (task_id, result) in enumerate(checked, 1):
        results[task_id] = result
        tell("self-check", number, len(tasks))
    checks = [results[t.id][0] for t in tasks]
    runners = {t.id: results[t.id][1] for t in tasks if results[t.id][0].status == "ok"}
    return checks, runners


def too_many_failures(checks: list[Check]) -> Check | None:
    """The first failing check when more than ``MAX_FAILING`` of them failed, else None."""
    failed = [c for c in checks if c.status != "ok"]
    if checks and len(failed) > MAX_FAILING * len(checks):
        return failed[0]
    return None


def derived_timeout(checks: list[Check]) -> float:
    """10 s + 3 × the slowest nop or gold run of the passing checks."""
    runs = [v.seconds for c in checks if c.status == "ok" for v in (c.nop, c.gold) if v is not None]
    return round(TIMEOUT_FLOOR + TIMEOUT_FACTOR * max(runs or [0.0]), 1)
