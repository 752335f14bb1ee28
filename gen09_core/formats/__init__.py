"""Edit formats agents emit, each parsed into the one edit model (``gen09_core.models.Edit``):
``udiff`` (unified / git diff), ``apply_patch`` (OpenAI's V4A), ``editor`` (the text-editor
tool's commands), next to the native ``search_replace`` and ``whole_file``. One module per
format; each is imported only when a batch uses it, so ``gen09 apply`` starts as fast as before.
``emit`` turns a valid candidate back into any of the text formats.
"""

from __future__ import annotations

import importlib

from gen09_core.models import Candidate, Edit, Rejection

PATCH_FORMATS = ("udiff", "apply_patch")
COMMAND_FORMATS = ("editor",)
NATIVE_FORMATS = ("search_replace", "whole_file")
ALL_FORMATS = NATIVE_FORMATS + PATCH_FORMATS + COMMAND_FORMATS
EMIT_FORMATS = ("udiff", "apply_patch", "search_replace")


class MalformedPatch(ValueError):
    """Patch text (or an editor command) that does not follow its format's grammar; ``line``
    is the 1-based line of the patch (or the command number) where parsing failed."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class NotRepresentable(ValueError):
    """A valid candidate that an output format cannot express exactly."""


def parser(fmt: str):
    """The ``parse`` function of format ``fmt`` (its module imported on first use)."""
    module = {"udiff": "udiff", "apply_patch": "apply_patch", "editor": "editor"}[fmt]
    return importlib.import_module(f"gen09_core.formats.{module}").parse


def parse_candidate(fmt: str, cid: str, payload, where: str = "patch") -> Candidate:
    """One candidate of a ``udiff`` / ``apply_patch`` batch (``payload``: the patch text) or an
    ``editor`` batch (``payload``: the command list). A malformed payload is not an error of
    the batch: the candidate carries a ``malformed_patch`` rejection naming the line."""
    try:
        edits: tuple[Edit, ...] = parser(fmt)(payload)
    except MalformedPatch as exc:
        unit = "command" if fmt == "editor" else "line"
        detail = f"{fmt} {where}: {unit} {exc.line}: {exc.message}"
        return Candidate(cid, (), Rejection("apply", "malformed_patch", detail))
    return Candidate(cid, edits)
