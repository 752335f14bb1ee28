"""The decision rule (adopt the candidate stage only if every clause holds) and the ablation
rule (a mechanism stays only if removing it costs more than the noise), clause by clause."""

from __future__ import annotations

from attrs import frozen

NOISE = 0.05  # a change of at most 5 points (rates) or 5% (tokens per resolved) is noise


@frozen
class Clause:
    """One clause of a rule: its text, the measured values it read, and whether it holds
    (None when a value it needs is unknown — an unknown never counts as holding)."""

    text: str
    values: dict
    holds: bool | None


def _cmp(text, values, test) -> Clause:
    if any(v is None for v in values.values()):
        return Clause(text, values, None)
    return Clause(text, values, bool(test(*values.values())))


def _tokens_per_resolved(c: dict, b: dict) -> Clause:
    """Tokens per resolved task does not rise; with nothing resolved it is infinite."""
    text = "tokens-per-resolved does not rise"

    def value(m):
        infinite = m["tokens"] is not None and not m["resolved"]
        return "∞ (nothing resolved)" if infinite else m["tokens_per_resolved"]

    values = {"candidate": value(c), "baseline": value(b)}
    if c["tokens"] is None or b["tokens"] is None:
        return Clause(text, values, None)
    if not c["resolved"]:
        return Clause(text, values, False)
    if not b["resolved"]:
        return Clause(text, values, True)
    return Clause(text, values, c["tokens_per_resolved"] <= b["tokens_per_resolved"])


def decide(candidate: dict, baseline: dict) -> dict:
    """Every decision clause with its values, and the verdict (adopt only if all hold).

    Both arms are metric dicts from ``metrics.arm_metrics``; resolve is the selected@1 rate
    (no oracle selection), tokens and cost are totals over the sample."""
    c, b = candidate, baseline
    clauses = [
        _cmp("resolve-at-budget strictly beats the single greedy shot",
             {"candidate": c["resolve"], "baseline": b["resolve"]}, lambda x, y: x > y),
        _tokens_per_resolved(c, b),
        _cmp("edit-success rate strictly improves",
             {"candidate": c["edit_success"], "baseline": b["edit_success"]}, lambda x, y: x > y),
        _cmp("candidate diversity: deduplicated set size ≥ 2 at N > 1",
             {"mean_distinct": c["mean_distinct"], "n": c["n"]}, lambda d, n: n > 1 and d >= 2),
        _cmp("resolve_candidate ≥ resolve_current",
             {"candidate": c["resolve"], "baseline": b["resolve"]}, lambda x, y: x >= y),
        _cmp("cost_candidate ≤ 1.5 × cost_current",
             {"candidate": c["cost"], "baseline": b["cost"]}, lambda x, y: x <= 1.5 * y),
        _cmp("tokens_candidate ≤ 1.5 × tokens_current",
             {"candidate": c["tokens"], "baseline": b["tokens"]}, lambda x, y: x <= 1.5 * y),
    ]
    adopt = all(cl.holds is True for cl in clauses)
    unknown = [cl.text for cl in clauses if cl.holds is None]
    return {
        "clauses": [{"clause": cl.text, "values": cl.values, "holds": cl.holds} for cl in clauses],
        "verdict": "adopt" if adopt else "keep current path",
        "unknown": unknown,
    }


HONEST = (("resolve", "higher"), ("edit_success", "higher"), ("tokens_per_resolved", "lower"))


def ablate(full: dict, without: dict) -> dict:
    """The ablation rule for one mechanism: Δ (without − with) on each honest metric, and whether the
    mechanism is kept — only when removing it degrades some honest metric beyond noise
    (rates: more than 5 points; tokens-per-resolved: more than 5% relative)."""
    deltas, degraded, unknown = {}, [], []
    for name, better in HONEST:
        a, b = full.get(name), without.get(name)
        if a is None or b is None:
            deltas[name] = None
            unknown.append(name)
            continue
        delta = b - a
        deltas[name] = delta
        scale = abs(a) if name == "tokens_per_resolved" and a else 1.0
        worse = -delta if better == "higher" else delta
        if worse / scale > NOISE:
            degraded.append(name)
    return {"delta": deltas, "degraded": degraded, "unknown": unknown,
            "keep": bool(degraded),
            "rule": "kept iff its removal degrades an honest metric beyond noise (|Δ| ≤ 5% ⇒ delete)"}
