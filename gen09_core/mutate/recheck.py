"""The recheck stage of ``repo_mutate``: every accepted task once more, the way its verifier
will run it, so that no bundle ships a label only a lucky run gave.

1. The pristine copy runs every stable test once more, on their own (the oracle of every
   task at once: a task's FAIL_TO_PASS + PASS_TO_PASS is the stable set). A test that does
   not pass is unreliable and leaves every task.
2. Each task's mutant runs once more exactly as its verifier's nop will: its FAIL_TO_PASS
   and PASS_TO_PASS tests, in the verifier's order. A FAIL_TO_PASS test that passes now is
   flaky, or failed only in the validation's order (covering tests first, or without the
   tests before it: pathspec 0.12.1's symlink tests read a class attribute the test before
   them sets, and failed when run first). Where the validation ran in another order than
   the verifier's (``selection = "coverage"`` without a separate confirmation) the mutant's
   validation run is repeated to tell the two apart: a test that fails there again failed
   for the order, and becomes PASS_TO_PASS of that task alone, as the verifier's order
   makes it (``order_dependent_fail_to_pass``; humanize 4.12.3's ``test_naturaldelta``,
   which fails after ``test_i18n`` changed the locale, had left all 86 tasks); any other
   is flaky and leaves every task, with the other parametrizations of the same test. A
   PASS_TO_PASS test that fails there passed only in the validation's order: it is
   FAIL_TO_PASS in the verifier's run, and becomes one (``relabelled``; the pristine run
   above passed it) — only beside a FAIL_TO_PASS test that failed in both runs, since one
   failure in two runs may as well be chance.

A FAIL_TO_PASS test whose failure the mutant's run reports in other words than the
validation did keeps both messages (``message_again``): the issue text shows only what both
said. A task left without FAIL_TO_PASS or PASS_TO_PASS is rejected (``confirm_rejected``, with the
reason). Two pristine whole-suite runs miss a test that fails one run in five; this stage
sees each accepted task's tests run twice more. ``limits.recheck = false`` skips it.
"""

from __future__ import annotations

from attrs import evolve

from gen09_core.mutate.baseline import family
from gen09_core.mutate.confirm import Confirmed
from gen09_core.mutate.validate import mutant_job
from gen09_core.testrun.jobs import TestJob, failure_of
from gen09_core.testrun.outcomes import PASSED

PRISTINE = "recheck-pristine"


def recheck_stage(ctx, work, measured, mutants, confirmed: Confirmed, runners) -> Confirmed:
    """``confirmed`` with unreliable tests taken out of every accepted task, and the tasks
    left without a FAIL_TO_PASS or PASS_TO_PASS test moved to the rejected ones."""
    if not ctx.config.limits.recheck or not confirmed.accepted:
        return confirmed
    baseline, journal, limits = measured.baseline, ctx.journal, ctx.config.limits
    by_id = {m.mutant_id: m for m in mutants}
    jobs = [TestJob(PRISTINE, str(work.pristine), str(work.scratch), {}, baseline.stable, False,
                    measured.timeout, limits.memory_mb, stall_sec=measured.stall,
                    file_order=baseline.file_order)]
    for mid, verdict in confirmed.accepted.items():
        mutant = by_id[mid]
        jobs.append(TestJob(f"recheck-{mid}", str(work.pristine), str(work.scratch),
                            {mutant.path: mutant.text}, verdict.fail_to_pass + verdict.pass_to_pass, False,
                            measured.timeout, limits.memory_mb, stall_sec=measured.stall,
                            file_order=baseline.file_order))
    journal.event("recheck", "started", total=len(jobs), completed=0)
    runs = {}

    def run_all(batch: list) -> None:
        for run in ctx.executor.run(runners.mutant(), batch):
            runs[run.job_id] = run
            detail = {"status": run.status, "runner": run.runner, "seconds": round(run.seconds, 3)}
            journal.event("recheck", "progress", run.job_id, total=len(jobs), completed=len(runs),
                          detail=detail)

    run_all(jobs)
    pristine = runs[PRISTINE]
    unreliable = {t for t in baseline.stable if pristine.status != "ok" or pristine.outcomes.get(t) != PASSED}
    passed_now = {}  # mutant id -> its FAIL_TO_PASS tests that passed in the verifier's order
    for mid, verdict in confirmed.accepted.items():
        run = runs[f"recheck-{mid}"]
        passed = {t for t in verdict.fail_to_pass if run.status == "ok" and run.outcomes.get(t) == PASSED}
        if passed:
            passed_now[mid] = passed
    by_order = {}  # mutant id -> the ones its validation run, repeated, failed again
    if ctx.options.selection == "coverage" and ctx.options.confirm != "separate" and passed_now:
        again = {mid: mutant_job(ctx, work, measured, by_id[mid], f"recheck-order-{mid}")[0]
                 for mid in passed_now}
        again = {mid: job for mid, job in again.items() if job is not None}
        jobs += list(again.values())
        run_all(list(again.values()))
        for mid, job in again.items():
            run = runs[job.job_id]
            if run.status == "ok":
                by_order[mid] = {t for t in passed_now[mid] if run.outcomes.get(t, "error") != PASSED}
    flaky = {t for mid, passed in passed_now.items() for t in passed - by_order.get(mid, set())}
    families = {family(t) for t in flaky}
    dropped = unreliable | {t for t in baseline.stable if family(t) in families}
    accepted, rejected, relabelled = {}, dict(confirmed.rejected), 0
    for mid, verdict in confirmed.accepted.items():
        run = runs[f"recheck-{mid}"]
        moved = by_order.get(mid, set())  # PASS_TO_PASS in the verifier's order
        f2p = tuple(t for t in verdict.fail_to_pass if t not in dropped and t not in moved)
        kept = moved | set(verdict.pass_to_pass)
        p2p = tuple(t for t in baseline.stable if t in kept and t not in dropped)
        # what fails in the verifier's order is FAIL_TO_PASS there, beside a FAIL_TO_PASS test that
        # failed again: alone, a test that failed in one run of two is no label (path-to-regexp
        # 8.4.2's ReDoS checks time out under load: three became a task's only FAIL_TO_PASS)
        if run.status == "ok" and f2p:
            failing = {t for t in p2p if run.outcomes.get(t) != PASSED}
            relabelled += len(failing)
            f2p, p2p = tuple(sorted({*f2p, *failing})), tuple(t for t in p2p if t not in failing)
        if pristine.status != "ok":
            rejected[mid] = ("confirm_rejected", f"recheck: the pristine run ended {pristine.status}")
        elif run.status != "ok":
            rejected[mid] = ("confirm_rejected", f"recheck: the mutant's run ended {run.status}")
        elif not f2p or not p2p:
            rejected[mid] = ("confirm_rejected", "recheck: no FAIL_TO_PASS test failed again"
                             if not f2p else "recheck: no PASS_TO_PASS test passed again")
        else:
            failures = {t: _with_again(said, failure_of(run, t)) for t, said in verdict.failures.items()}
            accepted[mid] = evolve(verdict, fail_to_pass=f2p, pass_to_pass=p2p, failures=failures)
    spent = [runs[j.job_id] for j in jobs]
    recheck = {"unreliable": sorted(unreliable), "flaky_fail_to_pass": sorted(flaky),
               "order_dependent_fail_to_pass": sorted({t for moved in by_order.values() for t in moved}),
               "dropped": len(dropped), "relabelled": relabelled,
               "rejected": len(confirmed.accepted) - len(accepted),
               "seconds": sum(r.seconds for r in spent), "cpu_seconds": sum(r.cpu_seconds for r in spent)}
    journal.event("recheck", "done", detail={k: v for k, v in recheck.items() if "seconds" not in k})
    return evolve(confirmed, accepted=accepted, rejected=rejected, recheck=recheck)


def _with_again(failure: dict, again: dict | None) -> dict:
    """``failure`` of a test's first run, with the message of its recheck (``message_again``)
    where that says something else: the issue text then shows only what both said."""
    said = (again or {}).get("message")
    return failure if said is None or said == failure.get("message") else {**failure, "message_again": said}
