"""The ``gen09`` command line. Exit codes: 0 success, 1 nothing usable, 2 bad input or
usage, 3 an environment or tool failure."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sys
from pathlib import Path

import click

from gen09_core.errors import BadInput, Gen09Error, Interrupted


class Gen09Group(click.Group):
    """A group that turns ``Gen09Error`` into one message on stderr and its exit code, an
    OS failure that reached it (e.g. stdout on a full device) into exit 3, and a signal into
    one message, then death by that signal."""

    def invoke(self, ctx):
        """Run the command; map failures to exit codes without a traceback."""
        try:
            return super().invoke(ctx)
        except Gen09Error as exc:
            _say(f"gen09: error: {exc}")
            ctx.exit(exc.exit_code)
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            if _in_echo(exc):
                where = " (writing the output)"
                with contextlib.suppress(OSError, ValueError, AttributeError):  # nothing more to lose
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            _say(f"gen09: error: {exc.strerror or exc}{where}")
            ctx.exit(3)
        except (Interrupted, KeyboardInterrupt) as exc:
            signum = getattr(exc, "signum", signal.SIGINT)
            detail = getattr(exc, "detail", None)
            _say(f"gen09: interrupted by {signal.Signals(signum).name}" + (f": {detail}" if detail else ""))
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            raise


def _say(message: str) -> None:
    """One line on stderr, even when stderr itself is broken."""
    with contextlib.suppress(OSError, ValueError):
        click.echo(" ".join(message.split("\n")), err=True)


def _in_echo(exc: BaseException) -> bool:
    """True when ``exc`` was raised while printing (``click.echo``)."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "echo":
            return True
        tb = tb.tb_next
    return False


@click.group(cls=Gen09Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gen09")
def main():
    """gen09: turn proposed code changes into safe repository bytes.

    Every candidate edit is applied in memory to the same snapshot, parsed, hard-linted and
    deduplicated; each refusal comes with its stage and a stable reason code. The
    repository is never modified unless you ask for it with --write.
    """


@main.command("apply")
@click.argument("candidates", metavar="CANDIDATES.json")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=".",
              show_default=True, help="Repository the edits apply to.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (contract v1).")
@click.option("--write", "write_id", metavar="ID",
              help="Write this valid candidate to the repository: all its files or none, even "
                   "across SIGTERM/SIGKILL (journaled, locked, rolled back on failure).")
@click.option("--force", is_flag=True, help="With --write, also replace read-only files.")
@click.option("--hard-lint", default=",".join(("F821", "F401")), show_default=True,
              help="Comma-separated lint codes that reject a candidate when it introduces them "
                   "('' disables hard lint).")
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
    from gen09_core.pipeline import report_json, run_batch

    codes = tuple(c.strip() for c in hard_lint.split(",") if c.strip())
    for code in codes:
        if not re.fullmatch(r"[A-Z]+[0-9]*", code):
            raise BadInput(f"--hard-lint: {code!r} is not a lint code (like F821)")
    batch = load(candidates)
    if write_id is not None and write_id not in {c.id for c in batch.candidates}:
        raise BadInput(f"--write {write_id}: no candidate has that id")
    report = run_batch(batch, repo, hard_lint=codes, tolerant=tolerant)
    if emit_format and as_json:
        raise BadInput("--emit and --json are two different outputs; choose one")
    if emit_format:
        from gen09_core.formats.emit import emit_batch

        batch_out, skipped = emit_batch(report.outcomes, emit_format)
        click.echo(json.dumps(batch_out, indent=2, ensure_ascii=False))
        for cid, why in skipped:
            click.echo(f"gen09: {cid} not emitted: {why}", err=True)
    elif as_json:
        click.echo(json.dumps(report_json(report, repo), indent=2))
    else:
        _print_table(report)
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


@main.command("schema")
def schema_command():
    """Print the JSON Schema of the CANDIDATES.json input."""
    from gen09_core.candidates import SCHEMA

    click.echo(json.dumps(SCHEMA, indent=2))


@main.command("mcp")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=".",
              show_default=True, help="The repository tools act on when a call names none.")
def mcp_command(repo):
    """Serve gen09's tools over MCP on stdio (needs the extra: pip install 'gen09[mcp]').

    Tools: apply_candidates (a dry run, the report of apply --json), write_candidate,
    check_file, list_languages.
    """
    from gen09_core.mcp_server import serve

    serve(repo)


@main.command("plugins")
def plugins_command():
    """Print (JSON) the loaded plugins, the hooks each implements, and the generator."""
    from gen09_core.plugins import default_registry

    click.echo(json.dumps(default_registry().describe(), indent=2))


def _print_table(report) -> None:
    """A plain aligned table (rich costs ~50 ms of start-up, too much for every agent step)."""
    rep = report.representation
    rows = [("id", "status", "reason", "detail")]
    for o in report.outcomes:
        if o.rejection:
            reason, detail = f"{o.rejection.stage}/{o.rejection.reason}", o.rejection.detail
        elif o.duplicate_of:
            reason, detail = "", f"same normal form as {o.duplicate_of}"
        else:
            reason, detail = "", ", ".join(f.path for f in o.applied.files)
        if o.ungated:
            detail += f" (no syntax gate for {', '.join(o.ungated)})"
        rows.append((o.id, o.status, reason, detail))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    click.echo(f"representation: {rep.classification} -> {rep.format} ({rep.reason})")
    for row in rows:
        click.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + "  " + row[3])
    s = report.summary()
    click.echo(f"{s['valid']} valid, {s['duplicate']} duplicate, {s['rejected']} rejected of "
               f"{s['total']}; edit-success rate {s['edit_success_rate']:.0%}")

from gen09_core.cli_model import generate_command, intent_command, run_command  # noqa: E402

main.add_command(intent_command)
main.add_command(generate_command)
main.add_command(run_command)


from gen09_core.mutate.cli import mutate_command, verify_command  # noqa: E402  (light: click only)

main.add_command(mutate_command)
main.add_command(verify_command)


from gen09_core.ab.cli import ab_command  # noqa: E402  (light: click only)

main.add_command(ab_command)
