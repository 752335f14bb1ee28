"""``run_ab``: sample → arms → metrics → decision → ablations → format probe →
report. Library entry of ``gen09 ab``."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from gen09_core.ab import arms as arms_module
from gen09_core.ab import decision, metrics, probe, report, selfcheck
from gen09_core.ab import formats as ab_formats
from gen09_core.ab import tasks as task_source
from gen09_core.ab.run import run_arms

HARNESS_DEMO = "harness demonstration (template generator, not a model)"


def registry_and_client(generator: str, base_url, model, api_key, prices, record, replay):
    """The registry and metered client for this run; the template generator is registered
    for this run only and made the active one."""
    from gen09_core.generate import make_client as client_for
    from gen09_core.llm import Endpoint, PriceTable
    from gen09_core.plugins import default_registry, make_registry

    if generator == "template":
        from gen09_core.generators import template

        registry = make_registry(extra=[(template.NAME, template)], generator=template.NAME)
        base_url, model = base_url or "template://local", model or template.NAME
    else:
        registry = default_registry()
    endpoint = Endpoint.from_env(base_url, model, api_key)
    return registry, client_for(registry, endpoint, PriceTable.load(prices), record=record, replay=replay)


def run_ab(*, tasks, checkouts=None, n=4, k=20, seed=0, out, generator="openai", base_url=None,
           model=None, api_key=None, prices=None, output_mode="json_schema", record=None, replay=None,
           python=None, workers=2, tolerant=False, show_progress=True, timeout=None,
           check_timeout=900.0, executor=None, formats=()) -> dict:
    """Run the whole protocol and write the report into ``out``; return a short summary.

    Before any arm runs, every sampled task is self-checked (``selfcheck``); failing tasks
    are excluded, and when more than a tenth fail, only the self-check is written and
    ``EnvironmentFailure`` names the first failure. ``python`` overrides each task's own
    environment; ``timeout`` (default: derived from the self-check runs) bounds each
    candidate's test run. ``executor`` runs the validations (default: ``workers`` at a time
    on this machine). ``formats`` adds one candidate arm per edit format
    (``gen09_core.ab.formats``)."""
    from gen09_core.errors import BadInput, EnvironmentFailure
    from gen09_core.generate import MAX_N, Settings

    if not 1 <= n <= MAX_N:
        raise BadInput(f"--n must be between 1 and {MAX_N}, got {n}")
    registry, client = registry_and_client(generator, base_url, model, api_key, prices, record, replay)
    available, skipped = task_source.load(tasks, registry, checkouts)
    drawn = task_source.sample(available, k, seed)
    formats = ab_formats.parse_formats(formats) if isinstance(formats, str) else tuple(formats)
    arm_list = arms_module.arms(n, tolerant, formats)
    out = Path(out).resolve()
    with _progress(show_progress) as tell:
        checks, runners = selfcheck.self_check(drawn, python, out / "work", check_timeout, workers, tell,
                                               executor)
        check_section = {"max_failing": selfcheck.MAX_FAILING, "tasks": [c.as_dict() for c in checks],
                         "failed": sum(c.status != "ok" for c in checks), "skipped_records": skipped}
        first = selfcheck.too_many_failures(checks)
        if first is not None:
            report.write_self_check(out, {"version": 1, "self_check": check_section})
            raise EnvironmentFailure(
                f"self-check: {check_section['failed']} of {len(checks)} sampled tasks failed (more than "
                f"{selfcheck.MAX_FAILING:.0%}), so no numbers are reported; first: {first.task}: "
                f"[{first.status}] {first.reason} (details in {out / 'self_check.json'})")
        sample = [t for t in drawn if t.id in runners]
        run_timeout = timeout or selfcheck.derived_timeout(checks)
        results = run_arms(sample, arm_list, client, registry, runners, run_timeout, workers, tell,
                           Settings(n=n, output=output_mode), scratch=out / "work", executor=executor)
    per_arm = {a.name: metrics.arm_metrics(results[a.name], a.n) for a in arm_list}
    ablations = {}
    for arm in arm_list:
        if arm.removes:
            ablations[arm.name] = {"mechanism": arm.removes,
                                   **decision.ablate(per_arm["candidate"], per_arm[arm.name])}
    if "tolerant" in per_arm:  # an added mechanism: the candidate arm is "without" it
        ablations["tolerant"] = {"mechanism": "tolerant matching tier (opt-in)",
                                 **decision.ablate(per_arm["tolerant"], per_arm["candidate"])}
    label = HARNESS_DEMO if generator == "template" else f"model {client.endpoint.model}"
    body = {
        "version": 1,
        "label": label,
        "generator": label if generator == "template" else generator,
        "n": n,
        "sample": {"source": str(tasks), "available": len(available), "k": len(sample), "drawn": len(drawn),
                   "seed": seed, "tasks": [t.id for t in sample]},
        "self_check": check_section,
        "validation_timeout_sec": run_timeout,
        "validation_timeout_source": ("--timeout" if timeout
                                      else "derived: 10 s + 3 x the slowest self-check run"),
        "arms": per_arm,
        "paired_resolve": metrics.paired(results["candidate"], results["baseline"], seed),
        "decision": decision.decide(per_arm["candidate"], per_arm["baseline"]),
        "ablations": ablations,
        "probe": probe.probe(sample, registry, results),
        **({"formats": ab_formats.compare(per_arm, formats)} if formats else {}),
        "per_task": {name: [_task_row(r) for r in rows] for name, rows in results.items()},
        "validation_runners": dict(Counter(f.verdict.runner for rows in results.values() for r in rows
                                           for f in r.forwarded)),
    }
    if formats:
        body["probe"]["formats"] = ab_formats.probe(sample, registry, formats)
    paths = report.write(Path(out), body)
    return {"label": label, "tasks": len(sample), "verdict": body["decision"]["verdict"],
            "resolve": {name: m["resolve"] for name, m in per_arm.items()}, "files": paths}


def _task_row(r) -> dict:
    return {"task": r.task, "format": r.format, "generated": r.generated,
            "applied_and_parsed": r.applied_and_parsed, "distinct_valid": r.distinct_valid,
            "selected": r.selected, "resolved": r.resolved, "pass_at_n": r.any_resolved,
            "forwarded": [_forwarded_row(f) for f in r.forwarded],
            "prompt_tokens": r.prompt_tokens, "completion_tokens": r.completion_tokens,
            "cost_usd": r.cost_usd, "regenerate": r.regenerate, "note": r.note}


def _forwarded_row(f) -> dict:
    row = {"id": f.id, "votes": f.votes, "resolved": f.verdict.resolved,
           "regression_ok": f.verdict.regression_ok, "runner": f.verdict.runner}
    if f.verdict.problem:
        row["problem"] = f.verdict.problem  # the run could not measure: counted as not resolved
    return row


class _progress:
    """A rich progress bar on stderr (nothing when disabled)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def __enter__(self):
        if not self.enabled:
            return lambda *args: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            console=Console(stderr=True), transient=False)
        self.bar.start()
        self.ids = {}

        def tell(kind, done, total):
            if kind not in self.ids:
                self.ids[kind] = self.bar.add_task(kind, total=total)
            self.bar.update(self.ids[kind], completed=done, total=total)

        return tell

    def __exit__(self, *exc):
        if self.enabled:
            self.bar.stop()
        return False
