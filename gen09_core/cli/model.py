"""``gen09 intent``, ``gen09 generate`` and ``gen09 run``: stage (a), (a)→(c) and (a)→(f).

Heavy imports (the stages, the ``openai`` SDK) happen inside the commands, so loading the
CLI stays fast for ``gen09 apply``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from gen09_core.cli.options import ENDPOINT, HARD_LINT, SAMPLING, replay_option, repo_option, stack

_REPO = repo_option("Repository the target lives in (read only).")
_FORMAT = click.option("--format", "edit_format",
                       type=click.Choice(["search_replace", "whole_file", "udiff", "apply_patch"]),
                       help="The edit format to ask the model for (default: stage (b)'s choice); "
                            "udiff and apply_patch answers are parsed strictly, all or nothing.")
_GENERATION = stack(click.argument("upstream", metavar="UPSTREAM.json"), _REPO, SAMPLING, _FORMAT, ENDPOINT,
                    replay_option(must_exist=False))
"""What every command around the one model call takes."""


@click.command("intent")
@click.argument("upstream", metavar="UPSTREAM.json")
@_REPO
def intent_command(upstream, repo):
    """Assemble and print (JSON) the intent package of UPSTREAM.json: stage (a).

    Exit status: 0; 2 when the input is invalid or its target does not match the repository.
    """
    from gen09_core.intent import assemble, load_upstream

    package = assemble(load_upstream(upstream), repo, source=upstream)
    click.echo(json.dumps(package.as_json(), indent=2, ensure_ascii=False))


@click.command("generate")
@_GENERATION
@click.option("--out", type=click.Path(dir_okay=False), help="Write candidates.json here "
              "instead of stdout.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the generation report (intent, calls, usage, candidates) as JSON.")
def generate_command(upstream, repo, out, as_json, **options):
    """Run (a) intent → (b) representation → (c) the one model call, and emit the
    candidates.json batch that `gen09 apply` consumes.

    Exit status: 0 with candidates; 1 when the generator did not fire or its answer was
    unusable (the report says why, with the regenerate flag); 2 bad input; 3 when the
    endpoint fails after the bounded retries.
    """
    package, generation = _generate(upstream, repo, options)
    if out and generation.batch_json is not None:
        Path(out).write_text(json.dumps(generation.batch_json, indent=2, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    if as_json:
        click.echo(json.dumps({"version": 1, "intent": package.as_json(),
                               "generation": generation.as_json(),
                               "batch": generation.batch_json}, indent=2, ensure_ascii=False))
    elif not out and generation.batch_json is not None:
        click.echo(json.dumps(generation.batch_json, indent=2, ensure_ascii=False))
    _summary(generation)
    sys.exit(0 if generation.batch_json is not None else 1)


@click.command("run")
@_GENERATION
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document: intent, "
              "generation (calls, usage) and the apply report (contract v1).")
@HARD_LINT
def run_command(upstream, repo, as_json, hard_lint, **options):
    """Run the whole stage, (a) → (f): generate, then apply, gate and deduplicate the
    candidates, and print the valid set with the token/cost summary. Read only.

    Exit status: 0 when at least one candidate is valid; 1 when none is (or the generator
    did not fire); 2 bad input; 3 when the endpoint or a tool fails.
    """
    from gen09_core.pipeline import report_json, run_batch

    package, generation = _generate(upstream, repo, options)
    report = None
    if generation.batch is not None:
        report = run_batch(generation.batch, repo, hard_lint=hard_lint)
    if as_json:
        click.echo(json.dumps({"version": 1, "intent": package.as_json(),
                               "generation": generation.as_json(), "batch": generation.batch_json,
                               "report": None if report is None else report_json(report, repo)},
                              indent=2, ensure_ascii=False))
    elif report is not None:
        from gen09_core.cli.output import print_table

        print_table(report)
        for outcome in report.outcomes:
            if outcome.status == "valid":
                click.echo(f"--- {outcome.id}\n{outcome.diff}", nl=False)
    _summary(generation)
    sys.exit(0 if report is not None and report.summary()["valid"] else 1)


def _generate(upstream, repo, options):
    from gen09_core import represent
    from gen09_core.generate import Settings, generate, make_client
    from gen09_core.intent import assemble, load_upstream
    from gen09_core.llm import Endpoint, PriceTable
    from gen09_core.plugins import default_registry

    registry = default_registry()
    settings = Settings(n=options["n"], temperature=options["temperature"],
                        max_completion_tokens=options["max_completion_tokens"],
                        output=options["output"], sampling=options["sampling"],
                        on_parse_failure=options["on_parse_failure"])
    package = assemble(load_upstream(upstream), repo, registry, source=upstream)
    representation = represent.override(represent.select(registry, package.target),
                                        options.get("edit_format"), "--format")
    endpoint = Endpoint.from_env(options["base_url"], options["model"], options["api_key"],
                                 timeout=options["timeout"], retries=options["retries"])
    from gen09_core.generate import firing_condition

    if firing_condition(package, repo, registry) is not None:
        client = None  # a deterministic failure needs no endpoint and makes no call
    else:
        client = make_client(registry, endpoint, PriceTable.load(options["prices"]),
                             record=options["record"], replay=options["replay"])
    generation = generate(package, representation, client, settings, repo, registry)
    return package, generation


def _summary(generation) -> None:
    from gen09_core.llm import usage_summary

    if not generation.fired:
        click.echo(f"gen09: generator not fired: {generation.reason}", err=True)
        return
    usage = usage_summary(generation.calls)
    cost = "unknown" if usage["cost_usd"] is None else f"${usage['cost_usd']:.6f}"
    count = 0 if generation.batch is None else len(generation.batch.candidates)
    click.echo(f"gen09: {count} candidate(s) from {usage['calls']} call(s); tokens "
               f"{usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion; "
               f"cost {cost}; {usage['latency_ms']} ms", err=True)
    for note in generation.notes:
        click.echo(f"gen09: note: {note}", err=True)
    if generation.regenerate:
        click.echo(f"gen09: no usable candidate ({generation.failure}); regenerate", err=True)
