"""The confirmation stage of ``repo_mutate``: each valid mutant once more against every
stable test, so a task's FAIL_TO_PASS and PASS_TO_PASS sets are complete.

Under ``confirm = "same_run"`` validation already went on through every stable test, and
under ``selection = "full"`` the validation run was the confirmation; only ``confirm =
"separate"`` starts a run here. Under ``confirm = "coverage"`` nothing runs: the validation
verdict already holds every covering test's outcome, and the stable tests that never ran a
changed line in the pristine coverage run are PASS_TO_PASS without running. Confirmed
mutants beyond ``limits.max_tasks`` are dropped.
"""

from __future__ import annotations

from attrs import evolve, field, frozen

from gen09_core.mutate.baseline import Baseline
from gen09_core.mutate.validate import Verdict, judge
from gen09_core.testrun.jobs import TestRun

NO_RUN = {"full": "validation run covered every stable test",
          "coverage": "inferred from coverage: every covering test ran; the other stable tests never ran "
                      "a changed line in the pristine run, so they are PASS_TO_PASS without running"}


def confirm(baseline: Baseline, run: TestRun) -> Verdict:
    """Re-derive F2P/P2P from a run over every stable test (the confirmation)."""
    return judge(baseline, run, baseline.stable, "full")


@frozen
class Confirmed:
    """The confirmation stage's result: the confirmed verdict of every valid mutant, the
    accepted ones (in task order, at most ``limits.max_tasks``), and why the others are out
    (``{mutant id: (outcome column, reason)}``)."""

    verdicts: dict[str, Verdict]
    accepted: dict[str, Verdict]
    rejected: dict[str, tuple[str, str]]
    recheck: dict = field(factory=dict)  # what the recheck stage found and spent (empty before it)


def confirm_stage(ctx, work, measured, mutants, validated, runners, records) -> Confirmed:
    """Confirm every valid mutant of ``validated``; saved confirmations are reused."""
    from gen09_core.testrun.jobs import TestJob

    baseline, options, journal = measured.baseline, ctx.options, ctx.journal
    valid = [m for m in mutants if validated.verdicts[m.mutant_id].status == "valid"]
    current, jobs, by_job = {}, [], {}
    for mutant in valid:
        mid = mutant.mutant_id
        record = current[mid] = validated.records[mid]
        if record.confirmed is not None:
            continue
        note = NO_RUN.get("full" if options.selection == "full" else options.confirm)
        if note:
            current[mid] = records.save(mid, evolve(record, confirmed=record.verdict, confirmation=note))
            continue
        by_job[f"confirm-{mid}"] = mid
        jobs.append(TestJob(f"confirm-{mid}", str(work.pristine), str(work.scratch),
                            {mutant.path: mutant.text}, baseline.stable, False, measured.timeout,
                            ctx.config.limits.memory_mb, stall_sec=measured.stall,
                            file_order=baseline.file_order))
    journal.event("confirm", "started", total=len(jobs), completed=0)
    for done, run in enumerate(ctx.executor.run(runners.mutant(), jobs), 1):
        mid = by_job[run.job_id]
        verdict = confirm(baseline, run)
        agrees = sorted(validated.verdicts[mid].fail_to_pass) == sorted(verdict.fail_to_pass)
        current[mid] = records.save(mid, evolve(current[mid], confirmed=verdict, selection_agrees=agrees))
        journal.event("confirm", "progress", mid, total=len(jobs), completed=done,
                      detail={"status": verdict.status, "selection_agrees": agrees})
    verdicts = {m.mutant_id: current[m.mutant_id].confirmed for m in valid}
    accepted = {mid: v for mid, v in verdicts.items() if v.status == "valid"}
    rejected = {mid: ("confirm_rejected", f"confirmation: {v.status}")
                for mid, v in verdicts.items() if v.status != "valid"}
    ordered = sorted(accepted)
    cap = ctx.config.limits.max_tasks
    if cap:
        rejected.update({mid: ("over_task_cap", f"limits.max_tasks = {cap}") for mid in ordered[cap:]})
        ordered = ordered[:cap]
    journal.event("confirm", "done", detail={"accepted": len(ordered)})
    return Confirmed(verdicts, {mid: accepted[mid] for mid in ordered}, rejected)
