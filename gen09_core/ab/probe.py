"""The format-robustness probe: search/replace vs whole-file apply rates, and
malformed candidates planted on purpose — each must be rejected cleanly with the repository
byte-identical afterwards."""

from __future__ import annotations

from collections import Counter

from gen09_core.ab.tasks import Task
from gen09_core.candidates import parse
from gen09_core.hashing import sha256_tree

PLANTED = ("missing_search", "non_unique_match", "off_by_one_context", "truncated_whole_file")


def planted(task: Task) -> list[dict]:
    """One malformed candidate of each kind over the task's target span."""
    text = (task.repo / task.file).read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    body = lines[task.span.start - 1:task.span.end]
    repeated = next((ln for ln, c in Counter(body).items() if c > 1 and ln.strip()), None)
    search = repeated or next(ch for ch, c in Counter("".join(body)).items() if c > 1)
    cut = sum(len(ln) for ln in lines[:task.span.start - 1]) + len("".join(body)) // 2
    skip = body[0] + (body[2] if len(body) > 2 else "\n#") if len(body) > 1 else body[0] + "#"
    return [
        {"id": "missing_search", "edits": [{"file": task.file, "search": "", "replace": body[0]}]},
        {"id": "non_unique_match", "edits": [{"file": task.file, "search": search, "replace": search}]},
        {"id": "off_by_one_context", "edits": [{"file": task.file, "search": skip, "replace": skip.upper()}]},
        {"id": "truncated_whole_file", "edits": [{"file": task.file, "content": text[:cut]}]},
    ]


def probe(tasks: list[Task], registry, results: dict) -> dict:
    """Apply every planted candidate of every task through the pipeline; record each
    outcome and whether the repository's bytes changed. ``results`` (per arm) supplies the
    measured apply rates per format, over the candidate arm and the whole-file ablation."""
    from gen09_core.pipeline import run_batch

    rows, corrupted = [], 0
    for task in tasks:
        before = sha256_tree(task.repo)
        batch = parse({"version": 1, "target": {"file": task.file, "span": task.span.as_list()},
                       "candidates": planted(task)}, f"probe {task.id}")
        report = run_batch(batch, task.repo, registry)
        changed = sha256_tree(task.repo) != before
        corrupted += changed
        for outcome in report.outcomes:
            rows.append({"task": task.id, "kind": outcome.id, "status": outcome.status,
                         "reason": outcome.rejection.reason if outcome.rejection else None,
                         "repo_unchanged": not changed})
    per_kind = {}
    for kind in PLANTED:
        mine = [r for r in rows if r["kind"] == kind]
        per_kind[kind] = {"planted": len(mine), "rejected": sum(r["status"] == "rejected" for r in mine),
                          "reasons": dict(Counter(r["reason"] for r in mine if r["reason"]))}
    sr, wf = (_apply_rate(results, fmt) for fmt in ("search_replace", "whole_file"))
    return {
        "apply_rate": {"search_replace": sr, "whole_file": wf,
                       "search_replace_more_reliable": None if sr is None or wf is None else sr > wf},
        "planted": per_kind,
        "all_rejected": all(r["status"] == "rejected" for r in rows),
        "repositories_corrupted": corrupted,
        "rows": rows,
    }


def _apply_rate(results: dict, fmt: str) -> float | None:
    """Applied-and-parsed / generated over the candidate and whole-file arms, for one format."""
    rows = [r for arm in ("candidate", "whole_file") for r in results.get(arm, []) if r.format == fmt]
    generated = sum(r.generated for r in rows)
    return sum(r.applied_and_parsed for r in rows) / generated if generated else None
