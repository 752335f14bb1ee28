"""The deterministic candidate pipeline: (b) represent → (d) apply → (e) gate → (f) dedup.

Library use::

    from gen09_core.candidates import parse
    from gen09_core.pipeline import run_batch
    report = run_batch(parse(json_data), "path/to/repo")
"""

from __future__ import annotations

import difflib
import re

from gen09_core import represent
from gen09_core.apply import apply_candidate
from gen09_core.dedup import dedup
from gen09_core.errors import BadInput
from gen09_core.gate import DEFAULT_HARD_LINT, gate
from gen09_core.models import Applied, CandidateBatch, Outcome, Report, Representation
from gen09_core.plugins import default_registry
from gen09_core.repo import Snapshot, repo_root
from gen09_core.targets import check_target
from gen09_core.text import common_ends, line_count, line_offsets


def run_batch(batch: CandidateBatch, repo, registry=None, hard_lint=DEFAULT_HARD_LINT,
              tolerant: bool = False) -> Report:
    """Run every candidate of ``batch`` against ``repo`` in memory and report each outcome.
    The repository is only read. ``tolerant`` opts in to the tolerant matching tier. A
    candidate the gate rejects keeps its ``applied`` files in the outcome."""
    registry = registry or default_registry()
    repo = repo_root(repo)
    ids = [c.id for c in batch.candidates]
    if len(set(ids)) != len(ids):
        raise BadInput("candidate ids must be unique within a batch")
    snapshot = Snapshot(repo)
    check_target(registry, snapshot, batch.target)
    representation = _representation(registry, batch)
    outcomes: dict[str, Outcome] = {}
    applied: list[Applied] = []
    for candidate in batch.candidates:
        result = apply_candidate(registry, snapshot, candidate, batch.target, tolerant)
        if isinstance(result, Applied):
            applied.append(result)
        else:
            outcomes[candidate.id] = Outcome(candidate.id, "rejected", rejection=result)
    survivors = []
    for result, verdict in zip(applied, gate(registry, applied, hard_lint), strict=True):
        cid = result.candidate.id
        if verdict.rejection:
            outcomes[cid] = Outcome(cid, "rejected", verdict.rejection, result, ungated=verdict.ungated)
        else:
            survivors.append((result, verdict.ungated))
    keys = dedup(registry, [(a.candidate.id, a) for a, _ in survivors])
    for (result, ungated), (key, duplicate_of) in zip(survivors, keys, strict=True):
        cid = result.candidate.id
        outcomes[cid] = Outcome(
            cid, "duplicate" if duplicate_of else "valid", applied=result, digest=key,
            duplicate_of=duplicate_of, diff=unified_diff(result), ungated=ungated,
        )
    return Report(representation, tuple(outcomes[c.id] for c in batch.candidates))


def _representation(registry, batch: CandidateBatch) -> Representation:
    return represent.override(represent.select(registry, batch.target), batch.format, "the input")


def unified_diff(applied: Applied) -> str:
    r"""The candidate as a unified diff (``a/`` and ``b/`` prefixes, git style) that
    ``git apply`` and ``patch -p1`` apply to the original bytes: lines split on ``\n`` only,
    a BOM kept on the first line, ``\\ No newline at end of file`` where due, a
    ``diff --git`` header per file and ``new file mode`` for a created one (so an empty
    file is created too). Only the changed middle of each file (plus context) is split into lines
    and goes through difflib."""
    chunks = []
    moved = {f.moved_from for f in applied.files if f.moved_from}
    for changed in applied.files:
        if changed.deleted and changed.path in moved:
            continue  # shown as the rename of its new path
        bom = "\ufeff"
        old_text = bom * bool(changed.original and changed.original.bom) + changed.old_text
        new_text = "" if changed.deleted else bom * changed.bom + changed.new_text
        head, tail = common_ends(old_text, new_text)
        lo = max(head - DIFF_CONTEXT, 0)
        offsets = line_offsets(old_text)
        start, end = offsets[lo], offsets[line_count(old_text) - max(tail - DIFF_CONTEXT, 0)]
        old = _lines(old_text[start:end])
        new = _lines(new_text[start:len(new_text) - (len(old_text) - end)])
        was = changed.moved_from or changed.path
        chunks.append(git_header(changed))
        if changed.moved_from and old_text == new_text:
            continue
        source = f"a/{was}" if changed.original else "/dev/null"
        dest = "/dev/null" if changed.deleted else f"b/{changed.path}"
        lines = difflib.unified_diff(old, new, source, dest, n=DIFF_CONTEXT)
        for line in lines:
            if line.startswith("@@") and lo:
                line = _shift_hunk(line, lo)
            chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def git_header(changed) -> str:
    """The ``diff --git`` line of one changed file, with git's ``new file mode``,
    ``deleted file mode`` or ``rename from`` / ``rename to`` lines where due."""
    was = changed.moved_from or changed.path
    head = f"diff --git a/{was} b/{changed.path}\n"
    if changed.original is None:
        return head + "new file mode 100644\n"
    if changed.deleted:
        return head + "deleted file mode 100644\n"
    if changed.moved_from:
        return head + f"rename from {was}\nrename to {changed.path}\n"
    return head


def _lines(text: str) -> list[str]:
    r"""``text`` split after each ``\n`` only (``str.splitlines`` also splits on ``\r``,
    ``\f``, ``\v``, U+0085, U+2028, ... which diff tools treat as ordinary characters)."""
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


DIFF_CONTEXT = 3
_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def _shift_hunk(header: str, offset: int) -> str:
    m = _HUNK.match(header)
    return (f"@@ -{int(m[1]) + offset}{m[2] or ''} +{int(m[3]) + offset}{m[4] or ''} @@"
            + header[m.end():])


def report_json(report: Report, repo) -> dict:
    """The report contract of ``gen09 apply --json`` (version 1)."""
    rep = report.representation
    entries = []
    for o in report.outcomes:
        entry = {"id": o.id, "status": o.status}
        if o.rejection:
            entry.update(stage=o.rejection.stage, reason=o.rejection.reason, detail=o.rejection.detail)
        if o.applied:
            entry["files"] = [f.path for f in o.applied.files]
            entry["match_tier"] = o.applied.match_tier
        if o.digest:
            entry["digest"] = o.digest
        if o.duplicate_of:
            entry["duplicate_of"] = o.duplicate_of
        if o.status == "valid":
            entry["diff"] = o.diff
        if o.ungated:
            entry["ungated_files"] = list(o.ungated)
        entries.append(entry)
    return {
        "version": 1,
        "repo": str(repo),
        "representation": {"classification": rep.classification, "format": rep.format,
                           "reason": rep.reason},
        "candidates": entries,
        "summary": report.summary(),
    }
