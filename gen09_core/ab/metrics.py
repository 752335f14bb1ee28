"""Per-arm metrics with their uncertainty."""

from __future__ import annotations

from gen09_core.ab.arms import TaskResult
from gen09_core.ab.stats import paired_bootstrap, wilson
from gen09_core.totals import known_total


def arm_metrics(results: list[TaskResult], n: int) -> dict:
    """Resolve (selected@1) and pass@N with Wilson intervals, edit-success (applied and
    parsed / generated), mean deduplicated set size, tokens, cost and tokens per resolved. A total
    over calls with an unknown part is unknown (None), never a partial sum."""
    k = len(results)
    resolved = sum(r.resolved for r in results)
    any_resolved = sum(r.any_resolved for r in results)
    generated = sum(r.generated for r in results)
    parsed = sum(r.applied_and_parsed for r in results)
    tokens = known_total(v for r in results for v in (r.prompt_tokens, r.completion_tokens))
    cost = known_total(r.cost_usd for r in results)
    cost = None if cost is None else round(cost, 8)
    return {
        "tasks": k,
        "n": n,
        "resolve": resolved / k if k else 0.0,
        "resolve_ci95": list(wilson(resolved, k)),
        "resolved": resolved,
        "pass_at_n": any_resolved / k if k else 0.0,
        "pass_at_n_ci95": list(wilson(any_resolved, k)),
        "edit_success": parsed / generated if generated else None,
        "edit_success_ci95": list(wilson(parsed, generated)) if generated else None,
        "generated": generated,
        "mean_distinct": sum(r.distinct_valid for r in results) / k if k else 0.0,
        "regenerate": sum(r.regenerate for r in results),
        "tokens": tokens,
        "cost": cost,
        "tokens_per_resolved": tokens / resolved if tokens is not None and resolved else None,
    }


def paired(candidate: list[TaskResult], baseline: list[TaskResult], seed: int) -> dict:
    """Paired bootstrap of per-task selected@1 resolve, candidate minus baseline."""
    by_task = {r.task: r for r in baseline}
    a = [float(r.resolved) for r in candidate]
    b = [float(by_task[r.task].resolved) for r in candidate]
    return paired_bootstrap(a, b, seed)
