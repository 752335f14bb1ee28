"""The plain report table that ``gen09 apply`` and ``gen09 run`` print."""

from __future__ import annotations

import click


def print_table(report) -> None:
    """Print ``report`` (a batch report) as a plain aligned table and a summary line.

    Plain text, not rich: rich costs ~50 ms of start-up, too much for every agent step."""
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
