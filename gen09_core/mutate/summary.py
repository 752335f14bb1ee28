"""The summary of a ``repo_mutate`` run: where every mutant ended, per modifier, and what
the run cost. Every mutant sent to validation ends in exactly one of ``OUTCOME_COLUMNS``."""

from __future__ import annotations

from attrs import frozen

OUTCOME_COLUMNS = ("uncovered", "no_fail_to_pass", "no_pass_to_pass", "timeout", "crash", "confirm_rejected",
                   "over_task_cap", "export_failed", "exported")
EXPLAINED = ("no_pass_to_pass", "timeout", "crash", "export_failed", "confirm_rejected", "over_task_cap")


@frozen
class Stages:
    """What the stages of one run handed forward, for the summary."""

    env: object  # mutate.environment.Environment
    measured: object  # mutate.baseline.Measured
    generated: object  # mutate.mutants.Generated
    validated: object  # mutate.validate.Validated
    confirmed: object  # mutate.confirm.Confirmed
    exported: object  # mutate.export.Exported
    warm: dict  # the warm worker's statistics (empty without one)


def outcomes(stages: Stages) -> dict[str, tuple[str, str]]:
    """``{mutant id: (outcome column, reason)}``: the last stage that decided wins."""
    final = {mid: (v.status, v.detail[:300]) for mid, v in stages.validated.verdicts.items()
             if v.status != "valid"}
    return {**final, **stages.confirmed.rejected, **stages.exported.outcomes}


def costs(stages: Stages, separate_confirmation: bool) -> dict[str, dict]:
    """Runner wall and CPU seconds, summed test durations and runs per runner (of the runs that
    happened: validation and separate confirmation), by stage."""
    mutants = stages.generated.mutants
    verdicts = [stages.validated.verdicts[m.mutant_id] for m in mutants]
    confirmed = [v for m in mutants if (v := stages.confirmed.verdicts.get(m.mutant_id)) is not None]
    confirmed = confirmed if separate_confirmation else []
    seconds = {"baseline": stages.measured.baseline.seconds, "validation": _sum(verdicts, "seconds"),
               "confirmation": _sum(confirmed, "seconds")}
    cpu = {"validation": _sum(verdicts, "cpu_seconds"), "confirmation": _sum(confirmed, "cpu_seconds")}
    if stages.confirmed.recheck:
        seconds["recheck"] = stages.confirmed.recheck["seconds"]
        cpu["recheck"] = stages.confirmed.recheck["cpu_seconds"]
    if stages.warm:
        seconds["warm_startup"] = stages.warm["startup_seconds"]
        cpu["warm_overhead"] = stages.warm["overhead_cpu_seconds"]
        # helpers the baseline started: their start-up is inside the baseline's seconds already
        cpu["baseline_helpers"] = stages.warm.get("baseline_overhead_cpu_seconds", 0.0)
    runners: dict[str, int] = {}
    for verdict in [v for v in verdicts if v.ran] + confirmed:  # an uncovered mutant ran nothing
        runners[verdict.runner] = runners.get(verdict.runner, 0) + 1
    return {"seconds": seconds, "cpu": cpu, "runners": runners,
            "test_seconds": {"validation": _sum(verdicts, "test_seconds"),
                             "confirmation": _sum(confirmed, "test_seconds")}}


def _sum(verdicts, name: str) -> float:
    total = 0.0
    for verdict in verdicts:
        total += getattr(verdict, name)
    return total


def per_modifier(stages: Stages, final: dict) -> tuple[dict, dict]:
    """``(per_modifier, failures)``: the counts of every modifier (generation counts and one
    column per outcome), and the reasons of the outcomes that need one."""
    table = {}
    for name, counts in sorted(stages.generated.per_modifier().items()):
        row = {"generated": 0, "duplicate": 0, "gated": 0}
        for key, value in counts.items():
            row[key] = row.get(key, 0) + value
        row.update(dict.fromkeys(OUTCOME_COLUMNS, 0))
        table[name] = row
    reasons: dict = {}
    for mutant in stages.generated.mutants:
        status, why = final[mutant.mutant_id]
        table[mutant.modifier][status] += 1
        if status in EXPLAINED:
            reasons.setdefault(status, []).append({"mutant": mutant.mutant_id, "reason": why})
    return table, reasons


def summarize(ctx, stages: Stages, recipe: str, version: str, wall: float) -> dict:
    """The run summary that ``gen09 mutate --json`` prints and ``summary.json`` keeps."""
    options, config = ctx.options, ctx.config
    baseline, env, mutants = stages.measured.baseline, stages.env, stages.generated.mutants
    spent = costs(stages, options.selection == "coverage" and options.confirm == "separate")
    seconds = spent["seconds"]
    table, reasons = per_modifier(stages, outcomes(stages))
    totals = {key: sum(row.get(key, 0) for row in table.values())
              for key in ("generated", "duplicate", "gated", *OUTCOME_COLUMNS)}
    totals["gate_dropped"] = sum(v for row in table.values() for k, v in row.items() if k.startswith("gate_"))
    accepted = stages.confirmed.accepted
    mutant_seconds = sum(v for k, v in seconds.items() if k != "baseline")  # warm start-up too
    per_task = mutant_seconds / len(accepted) if accepted else None
    return {
        "recipe": recipe, "recipe_version": version,
        "source": {"repo": config.source.name, "revision": config.source.revision},
        "seed": config.seeds.mutate, "selection": options.selection,
        "environment": environment_summary(ctx, env),
        "baseline": {"stable": len(baseline.stable), "flaky": list(baseline.flaky),
                     "failing": len(baseline.failing), "order_dependent": list(baseline.order_dependent),
                     "collection_errors": list(baseline.problems), "uncollected": list(baseline.uncollected),
                     "first_failure": baseline.first_failure},
        "recheck": {k: v for k, v in stages.confirmed.recheck.items() if "seconds" not in k},
        "timeout_sec": stages.measured.timeout, "timeout_source": stages.measured.timeout_source,
        "stall_sec": stages.measured.stall,
        "generate": {"files": stages.generated.files, "candidates": stages.generated.candidates,
                     "never_run_files": stages.generated.never_run},
        "mutants": len(mutants),
        "valid": sum(v.status == "valid" for v in stages.validated.verdicts.values()),
        "accepted": len(accepted), "exported": len(stages.exported.tasks),
        "outcomes": {key: totals[key] for key in OUTCOME_COLUMNS}, "totals": totals,
        "failures": reasons,
        "per_modifier": table,
        "runner_seconds": {k: round(v, 3) for k, v in seconds.items()},
        "runner_cpu_seconds": {k: round(v, 3) for k, v in spent["cpu"].items()},
        "test_seconds": {k: round(v, 3) for k, v in spent["test_seconds"].items()},
        "runner": config.limits.runner, "runs_by_runner": dict(sorted(spent["runners"].items())),
        "warm_workers": stages.warm,
        "runner_seconds_per_accepted_task": round(per_task, 3) if per_task is not None else None,
        "wall_seconds": round(wall, 3),
        "cost": {"test_runner_seconds": round(sum(seconds.values()), 3), "model_calls": 0,
                 "model_cost_usd": 0.0,
                 "note": "no model role is configured; runner seconds include rejected mutants"},
        "tasks": [e["task"] for e in stages.exported.tasks],
    }


def environment_summary(ctx, env) -> dict:
    """What the summary says about the environment: the venv's Python and packages, or, for
    another ecosystem, its toolchain and commands."""
    if hasattr(env, "describe"):
        return env.describe() | {"detected": ctx.recipe.summary()}
    return {"detected": ctx.recipe.summary(), "python": env.lock.python, "packages": len(env.lock.packages),
            "pytest_plugins": list(env.lock.plugins), "notes": list(env.notes)}
