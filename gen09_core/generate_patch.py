"""Stage (c) in the patch formats (``gen09 generate/run --format udiff|apply_patch``): what the
prompt says about the format, the answer's record schema, and the strict parse — a patch that
does not follow its grammar makes the whole response unusable, as a malformed SEARCH/REPLACE
block does."""

from __future__ import annotations

import re

PATCH_FORMATS = ("udiff", "apply_patch")

_HOW = {
    "udiff": ("udiff: each candidate is one unified diff of {file} (`--- a/{file}`, `+++ b/{file}`, "
              "then `@@ ... @@` hunks of ' ' context, '-' removed and '+' added lines). Each hunk's "
              "context and removed lines must be copied character for character from lines "
              "{start}-{end} and occur there exactly once; line numbers are not used. The file's "
              "current text follows."),
    "apply_patch": ("apply_patch: each candidate is one patch in the apply_patch (V4A) format: "
                    "`*** Begin Patch`, `*** Update File: {file}`, then chunks each opened by `@@` "
                    "(optionally `@@ <a line of the enclosing definition>`), of ' ' context, '-' "
                    "removed and '+' added lines, and `*** End Patch`. Each chunk's context and "
                    "removed lines must be copied exactly from lines {start}-{end} and occur there "
                    "exactly once. The file's current text follows."),
}
_FENCED = re.compile(r"^```[^\n`]*\n(.*?)^```[ \t]*$", re.S | re.M)
_V4A = re.compile(r"^\*\*\* Begin Patch[ \t]*\n.*?^\*\*\* End Patch[ \t]*$", re.S | re.M)


def describe(fmt: str, target) -> str:
    """The prompt's edit-format paragraph for ``fmt``."""
    return _HOW[fmt].format(file=target.file, start=target.span.start, end=target.span.end)


def record_schema() -> dict:
    """One answer record: ``{"patch": "..."}``."""
    return {"type": "object", "additionalProperties": False, "required": ["patch"],
            "properties": {"patch": {"type": "string"}}}


def check(record: dict, fmt: str, where: str, failure) -> dict:
    """``record`` when its patch parses in ``fmt``, else ``failure`` (the caller's exception
    class) naming the record and the failing line."""
    from gen09_core.formats import MalformedPatch, parser

    try:
        edits = parser(fmt)(record["patch"])
    except MalformedPatch as exc:
        raise failure(f"malformed patch: {where}: {exc}") from None
    if not edits:
        raise failure(f"malformed patch: {where} changes nothing")
    return record


def from_text(content: str, fmt: str, failure) -> list[dict]:
    """Patches in a text answer: each ``*** Begin Patch`` … ``*** End Patch`` block (apply_patch)
    or each fenced block (udiff), each parsed strictly."""
    if fmt == "apply_patch":
        found = [m.group(0) for m in _V4A.finditer(content)]
    else:
        found = [m.group(1) for m in _FENCED.finditer(content)]
    if not found:
        raise failure(f"no {fmt} patch in the answer")
    return [check({"patch": p}, fmt, f"patch {k}", failure) for k, p in enumerate(found)]
