"""``gen09 ab``: the A/B protocol on a task sample."""

from __future__ import annotations

import json
from pathlib import Path

import click

from gen09_core.cli.options import ENDPOINT, N_CANDIDATES, output_option, replay_option
from gen09_core.testrun.process import children_end_with_us


@click.command("ab")
@click.argument("tasks", metavar="TASKS", type=click.Path(exists=True, path_type=Path))
@click.option("--checkouts", type=click.Path(file_okay=False, path_type=Path),
              help="For a SWE-bench JSONL: a folder holding one checkout per instance_id.")
@N_CANDIDATES
@click.option("--k", "k", type=int, default=20, show_default=True, help="Tasks in the seeded sample.")
@click.option("--seed", type=int, default=0, show_default=True, help="Sampling and bootstrap seed.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder for report.json, report.md and chart.png.")
@click.option("--generator", type=click.Choice(["openai", "template"]), default="openai", show_default=True,
              help="openai: any OpenAI-compatible endpoint; template: deterministic repair templates "
                   "(NOT a model: a harness demonstration).")
@ENDPOINT
@output_option("output_mode")
@replay_option(must_exist=True)
@click.option("--python", "python", default=None,
              help="Interpreter for every task's tests, instead of each task's own environment: a bundle's "
                   "lock (as gen09 verify), a SWE-bench record's gen09_python, or a venv built from the "
                   "checkout's detected recipe.")
@click.option("--timeout", "timeout", type=float, default=None,
              help="Seconds per candidate validation run (default: 10 s + 3 x the slowest self-check run); "
                   "a timed-out run's whole process group is killed.")
@click.option("--workers", type=int, default=2, show_default=True, help="Parallel validations.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where validations run: this machine, or a Ray cluster (gen09[ray]).")
@click.option("--ray-address", default=None, help="The Ray cluster's address (default: RAY_ADDRESS).")
@click.option("--tolerant", is_flag=True, help="Also measure the tolerant matching tier as an arm.")
@click.option("--formats", default=None, metavar="LIST",
              help="Also run one candidate arm per edit format, e.g. "
                   "search_replace,udiff,apply_patch,whole_file, and compare them.")
@children_end_with_us()
def ab_command(tasks, checkouts, n, k, seed, out, generator, base_url, model, api_key, prices,
               output_mode, record, replay, python, timeout, workers, executor, ray_address, tolerant,
               formats):
    """Measure whether the candidate stage earns its place.

    TASKS is a `gen09 mutate` run folder (fresh, never-published tasks: a held-out sample) or
    a SWE-bench-style JSONL with --checkouts. Every arm runs on the identical seeded sample:
    the single greedy shot (baseline), the full candidate stage, and one ablation per
    mechanism. Before any arm runs, every sampled task is checked unchanged (must not
    resolve) and with its reference fix (must resolve); failing tasks are excluded. Writes
    report.json, report.md and chart.png; exit 0 when the report is written, 2 for bad
    input, 3 when a tool fails or more than 10% of the sample fails its self-check (then
    only self_check.json is written).
    """
    from gen09_core.ab.formats import parse_formats
    from gen09_core.ab.pipeline import run_ab
    from gen09_core.mutate.executors import make_executor

    pool = make_executor(executor, workers, ray_address)
    summary = run_ab(tasks=tasks, checkouts=checkouts, n=n, k=k, seed=seed, out=out,
                     generator=generator, base_url=base_url, model=model, api_key=api_key,
                     prices=prices, output_mode=output_mode, record=record, replay=replay,
                     python=python, timeout=timeout, workers=workers, tolerant=tolerant, executor=pool,
                     formats=parse_formats(formats))
    click.echo(json.dumps(summary, indent=2))
