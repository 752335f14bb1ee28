"""The arms of the A/B protocol on one sample, and what each produced per task.

The baseline is the single greedy shot: one candidate at temperature 0 from the bare target
(no intent package, no sampling, no format selection: search/replace), applied and validated
directly. The candidate arm is the full stage. Each ablation removes one mechanism."""

from __future__ import annotations

from attrs import evolve, frozen

from gen09_core import represent
from gen09_core.ab.validate import Verdict
from gen09_core.models import Report, Representation


@frozen
class Arm:
    """One way of producing the candidates that go to validation."""

    name: str
    intent: bool  # the intent package (else a bare target)
    n: int
    temperature: float
    format: str | None  # None: stage (b) selects it
    gate: bool  # False: gate-rejected candidates are forwarded to validation too
    tolerant: bool = False
    removes: str | None = None  # the mechanism this ablation arm removes


def arms(n: int, tolerant: bool = False, formats: tuple[str, ...] = ()) -> list[Arm]:
    """Baseline, candidate, and the ablations (plus the tolerant-matching tier's, and one
    candidate arm per format in ``formats``: ``gen09_core.ab.formats``)."""
    candidate = Arm("candidate", True, n, 0.8, None, True)
    out = [
        Arm("baseline", False, 1, 0.0, "search_replace", False),
        candidate,
        evolve(candidate, name="no_sampling", n=1, temperature=0.0, removes="candidate sampling"),
        evolve(candidate, name="no_intent", intent=False, removes="intent package"),
        evolve(candidate, name="whole_file", format="whole_file", removes="format selection"),
        evolve(candidate, name="no_gate", gate=False, removes="syntax/lint gate"),
    ]
    if tolerant:
        out.append(evolve(candidate, name="tolerant", tolerant=True, removes=None))
    out += [evolve(candidate, name=format_arm(fmt), format=fmt, removes=None) for fmt in formats]
    return out


def format_arm(fmt: str) -> str:
    """The name of the candidate arm whose format is fixed to ``fmt``."""
    return f"format:{fmt}"


@frozen
class Forwarded:
    """A candidate sent to validation: its id, normal-form digest, votes (itself plus the
    duplicates collapsed into it) and the validation verdict."""

    id: str
    digest: str
    votes: int
    verdict: Verdict


@frozen
class TaskResult:
    """One arm on one task."""

    task: str
    format: str | None
    generated: int
    applied_and_parsed: int
    distinct_valid: int
    forwarded: tuple[Forwarded, ...]
    selected: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    regenerate: bool
    note: str = ""

    @property
    def resolved(self) -> bool:
        """selected@1: the candidate chosen without the hidden tests resolves the task."""
        return any(f.id == self.selected and f.verdict.resolved for f in self.forwarded)

    @property
    def any_resolved(self) -> bool:
        """pass@N: some forwarded candidate resolves (an upper bound, oracle selection)."""
        return any(f.verdict.resolved for f in self.forwarded)


def representation_for(arm: Arm, registry, target) -> Representation:
    """Stage (b)'s choice, or the arm's fixed format."""
    chosen = represent.select(registry, target)
    if arm.format is None or arm.format == chosen.format:
        return chosen
    return Representation(chosen.classification, arm.format, f"fixed to {arm.format} by arm {arm.name}")


def to_forward(arm: Arm, report: Report) -> list[tuple]:
    """The ``(outcome, votes)`` this arm hands to validation: the distinct valid set (gate
    on), plus the candidates the gate rejected (gate off). Votes count the candidate itself
    and the duplicates collapsed into it."""
    votes: dict[str, int] = {}
    for outcome in report.outcomes:
        if outcome.status == "duplicate":
            votes[outcome.duplicate_of] = votes.get(outcome.duplicate_of, 1) + 1
    ungated = not arm.gate
    return [(o, votes.get(o.id, 1)) for o in report.outcomes
            if o.status == "valid" or (ungated and o.status == "rejected" and o.rejection.stage == "gate")]


def select(forwarded: tuple[Forwarded, ...]) -> str | None:
    """Selection that does not peek at the hidden tests: keep candidates that keep the
    PASS_TO_PASS regression tests green (all of them when none does), then the most votes
    over normalized forms, ties to the earliest."""
    if not forwarded:
        return None
    pool = [f for f in forwarded if f.verdict.regression_ok] or list(forwarded)
    return max(pool, key=lambda f: (f.votes, -forwarded.index(f))).id
