"""``gen09 apply``, ``gen09 schema`` and ``gen09 plugins``: the model-free engine."""

from __future__ import annotations

import json
import sys

import click

from gen09_core.cli.options import HARD_LINT, repo_option
from gen09_core.errors import BadInput


@click.command("apply")
@click.argument("candidates", metavar="CANDIDATES.json")
@repo_option("Repository the edits apply to.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (contract v1).")
@click.option("--write", "write_id", metavar="ID",
              help="Write this valid candidate to the repository: all its files or none, even "
                   "across SIGTERM/SIGKILL (journaled, locked, rolled back on failure).")
@click.option("--force", is_flag=True, help="With --write, also replace read-only files.")
@HARD_LINT
@click.option("--tolerant", is_flag=True,
              help="When a search block has no exact match, also accept a unique whole-line match "
                   "differing only in indentation shift and trailing whitespace (recorded as "
                   "match_tier: tolerant).")
@click.option("--emit", "emit_format", type=click.Choice(["udiff", "apply_patch", "search_replace"]),
              help="Print the valid candidates as a candidates.json batch in this format (which "
                   "`gen09 apply` takes back, giving the same bytes) instead of the report.")
def apply_command(candidates, repo, as_json, write_id, force, hard_lint, tolerant, emit_format):
    """Apply, gate and deduplicate the candidates in CANDIDATES.json ('-' for stdin).

    Exit status: 0 when at least one candidate is valid (and written, with --write);
    1 when none is; 2 for bad input; 3 when a tool or the disk fails.
    """
    from gen09_core.candidates import load
    from gen09_core.cli.output import print_table
    from gen09_core.pipeline import report_json, run_batch

    if emit_format and as_json:
        raise BadInput("--emit and --json are two different outputs; choose one")
    batch = load(candidates)
    if write_id is not None and write_id not in {c.id for c in batch.candidates}:
        raise BadInput(f"--write {write_id}: no candidate has that id")
    report = run_batch(batch, repo, hard_lint=hard_lint, tolerant=tolerant)
    if emit_format:
        from gen09_core.formats.emit import emit_batch

        batch_out, skipped = emit_batch(report.outcomes, emit_format)
        click.echo(json.dumps(batch_out, indent=2, ensure_ascii=False))
        for cid, why in skipped:
            click.echo(f"gen09: {cid} not emitted: {why}", err=True)
    elif as_json:
        click.echo(json.dumps(report_json(report, repo), indent=2))
    else:
        print_table(report)
    summary = report.summary()
    if write_id is not None:
        outcome = report.by_id(write_id)
        if outcome.status != "valid":
            why = outcome.rejection.detail if outcome.rejection else f"duplicate of {outcome.duplicate_of}"
            click.echo(f"gen09: not written: {write_id} is {outcome.status} ({why})", err=True)
            sys.exit(1)
        from gen09_core.write import write_files

        write_files(repo, outcome.applied.files, force=force)
        click.echo(f"gen09: wrote {write_id}: " + ", ".join(f.path for f in outcome.applied.files),
                   err=True)
    sys.exit(0 if summary["valid"] else 1)


@click.command("schema")
def schema_command():
    """Print the JSON Schema of the CANDIDATES.json input."""
    from gen09_core.candidates import SCHEMA

    click.echo(json.dumps(SCHEMA, indent=2))


@click.command("plugins")
def plugins_command():
    """Print (JSON) the loaded plugins, the hooks each implements, and the generator."""
    from gen09_core.plugins import default_registry

    click.echo(json.dumps(default_registry().describe(), indent=2))
