"""The edit format as a measured variable (``gen09 ab --formats``): one candidate arm per format
on the identical sample, their edit-success and resolve side by side, and the
format-robustness probe extended to each patch format's malformed cases."""

from __future__ import annotations

from collections import Counter

from gen09_core.ab.arms import format_arm as arm_name
from gen09_core.errors import BadInput

FORMATS = ("search_replace", "udiff", "apply_patch", "whole_file")
PLANTED = {
    "udiff": ("missing_header", "off_by_one_context", "truncated_hunk"),
    "apply_patch": ("missing_end_patch", "unknown_anchor", "off_by_one_context"),
}


def parse_formats(text: str | None) -> tuple[str, ...]:
    """``search_replace,udiff`` → ``("search_replace", "udiff")``; ``BadInput`` for an unknown
    or repeated format."""
    if not text:
        return ()
    chosen = tuple(f.strip() for f in text.split(",") if f.strip())
    unknown = [f for f in chosen if f not in FORMATS]
    if unknown:
        raise BadInput(f"--formats: {', '.join(unknown)} is not one of {', '.join(FORMATS)}")
    if len(set(chosen)) != len(chosen):
        raise BadInput("--formats: a format is named twice")
    return chosen


def compare(per_arm: dict, formats: tuple[str, ...]) -> dict:
    """Per format: its arm's edit-success and resolve with their intervals."""
    rows = {}
    for fmt in formats:
        m = per_arm[arm_name(fmt)]
        rows[fmt] = {"arm": arm_name(fmt), "generated": m["generated"], "edit_success": m["edit_success"],
                     "edit_success_ci95": m["edit_success_ci95"], "resolve": m["resolve"],
                     "resolve_ci95": m["resolve_ci95"], "resolved": m["resolved"], "tasks": m["tasks"],
                     "regenerate": m["regenerate"], "tokens": m["tokens"]}
    return rows


def planted(task, fmt: str) -> list[dict]:
    """The malformed candidates of ``fmt`` over the task's target span: each must be rejected."""
    text = (task.repo / task.file).read_text(encoding="utf-8")
    body = text.splitlines(keepends=True)[task.span.start - 1:task.span.end]
    first = body[0].rstrip("\n")
    skipped = body[2].rstrip("\n") if len(body) > 2 else "# gen09 probe: not in the file"
    if fmt == "udiff":
        head, at = f"--- a/{task.file}\n+++ b/{task.file}\n", task.span.start
        return [
            {"id": "missing_header", "patch": f"@@ -{at},1 +{at},1 @@\n-{first}\n+{first}x\n"},
            {"id": "off_by_one_context", "patch": f"{head}@@ @@\n {first}\n {skipped}\n+# probe\n"},
            {"id": "truncated_hunk", "patch": f"{head}@@ -{at},3 +{at},3 @@\n {first}\n"},
        ]
    begin, update = "*** Begin Patch\n", f"*** Update File: {task.file}\n"
    return [
        {"id": "missing_end_patch", "patch": f"{begin}{update}@@\n-{first}\n+{first}x\n"},
        {"id": "unknown_anchor", "patch": f"{begin}{update}@@ def gen09_probe_no_such_anchor():\n-{first}\n"
                                          f"+{first}x\n*** End Patch\n"},
        {"id": "off_by_one_context",
         "patch": f"{begin}{update}@@\n {first}\n {skipped}\n+# probe\n*** End Patch\n"},
    ]


def probe(tasks, registry, formats: tuple[str, ...]) -> dict:
    """Run each patch format's planted candidates through the pipeline on every task;
    per format and kind: how many were rejected and why, and whether any repository changed."""
    from gen09_core.candidates import parse
    from gen09_core.hashing import sha256_tree as tree_digest
    from gen09_core.pipeline import run_batch

    out = {}
    for fmt in (f for f in formats if f in PLANTED):
        rows, corrupted = [], 0
        for task in tasks:
            before = tree_digest(task.repo)
            batch = parse({"version": 1, "format": fmt, "candidates": planted(task, fmt),
                           "target": {"file": task.file, "span": task.span.as_list()}}, f"probe {task.id}")
            report = run_batch(batch, task.repo, registry)
            corrupted += tree_digest(task.repo) != before
            rows += [(o.id, o.status, o.rejection.reason if o.rejection else None) for o in report.outcomes]
        out[fmt] = {"planted": {kind: {"planted": sum(r[0] == kind for r in rows),
                                       "rejected": sum(r[0] == kind and r[1] == "rejected" for r in rows),
                                       "reasons": dict(Counter(r[2] for r in rows if r[0] == kind and r[2]))}
                                for kind in PLANTED[fmt]},
                    "all_rejected": all(r[1] == "rejected" for r in rows),
                    "repositories_corrupted": corrupted}
    return out
