"""Reading ``candidates.json``: JSON Schema validation, then frozen models."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from gen09_core.errors import BadInput
from gen09_core.jsoninput import read_json, validate
from gen09_core.models import Candidate, CandidateBatch, Edit, Span, Target

MAX_INPUT_BYTES = 32 * 1024 * 1024
MAX_CANDIDATES = 1000
MAX_EDITS = 100

_TEXT = {"type": "string"}
_SPAN = {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "maxItems": 2}
_EDIT = {
    "type": "object", "additionalProperties": False, "required": ["file"],
    "description": "Either search + replace, or content (the whole new file).",
    "properties": {"file": _TEXT, "search": _TEXT, "replace": _TEXT, "content": _TEXT},
}
_CANDIDATE = {
    "type": "object", "additionalProperties": False,
    "description": "Either edits, or a bare search + replace / content record on target.file.",
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "edits": {"type": "array", "minItems": 1, "maxItems": MAX_EDITS, "items": _EDIT},
        "search": _TEXT, "replace": _TEXT, "content": _TEXT,
    },
}
SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "gen09 candidates",
    "description": "Candidate edits for `gen09 apply` (version 1). A candidate is either "
                   "{id?, edits: [...]} or a bare {search, replace} / {content} record that "
                   "edits target.file.",
    "type": "object",
    "additionalProperties": False,
    "required": ["version", "candidates"],
    "properties": {
        "version": {"const": 1},
        "format": {"enum": ["search_replace", "whole_file"]},
        "target": {
            "type": "object", "additionalProperties": False,
            "properties": {"file": _TEXT, "span": _SPAN, "entity": _TEXT},
        },
        "candidates": {
            "type": "array", "minItems": 1, "maxItems": MAX_CANDIDATES,
            "items": _CANDIDATE,
        },
    },
}


def load(source: str) -> CandidateBatch:
    """Read and validate a candidates file (``-`` for stdin); any problem is ``BadInput``."""
    return parse(read_json(source, MAX_INPUT_BYTES, allow_stdin=True), source)


def parse(data, source: str = "candidates") -> CandidateBatch:
    """Validate parsed JSON against ``SCHEMA`` and build the batch."""
    validate(SCHEMA, data, source)
    target = _target(data.get("target"), source)
    candidates, seen = [], set()
    for number, record in enumerate(data["candidates"], 1):
        cid = record.get("id") or f"c{number}"
        if cid in seen:
            raise BadInput(f"{source}: candidate id {cid!r} appears twice")
        seen.add(cid)
        where = f"{source}: $.candidates[{number - 1}]"
        if "edits" in record:
            if {"search", "replace", "content"} & record.keys():
                raise BadInput(f"{where}: has both edits and a bare search/replace/content")
            edits = tuple(_edit(e["file"], e, f"{where}.edits[{k}]")
                          for k, e in enumerate(record["edits"]))
        elif target is None or target.file is None:
            raise BadInput(f"{where}: a bare record needs target.file to apply it to")
        else:
            edits = (_edit(target.file, record, where),)
        candidates.append(Candidate(cid, edits))
    return CandidateBatch(tuple(candidates), data.get("format"), target)


def _target(raw, source) -> Target | None:
    if raw is None:
        return None
    span = None
    if "span" in raw:
        start, end = raw["span"]
        if start > end:
            raise BadInput(f"{source}: $.target.span [{start}, {end}] ends before it starts")
        span = Span(start, end)
    if span is not None and "file" not in raw:
        raise BadInput(f"{source}: $.target.span needs $.target.file")
    file = _posix(raw["file"], f"{source}: $.target.file") if "file" in raw else None
    return Target(file, span, raw.get("entity"))


def _edit(file: str, record: dict, where: str) -> Edit:
    shape = {"search", "replace", "content"} & record.keys()
    if shape not in ({"search", "replace"}, {"content"}):
        raise BadInput(f"{where}: needs search + replace, or content (has "
                       f"{', '.join(sorted(shape)) or 'neither'})")
    return Edit(_posix(file, f"{where}.file"), record.get("search"), record.get("replace"),
                record.get("content"))


def _posix(path: str, where: str) -> str:
    """``./a//b.py`` → ``a/b.py``; ``..`` and absolute paths are kept for the safety check.
    A path no file system can hold (a control character, a name over 255 bytes) is
    ``BadInput``."""
    if _CONTROL.search(path):
        raise BadInput(f"{where}: the path {path!r} contains a control character")
    if any(len(part.encode("utf-8")) > 255 for part in path.split("/")) or len(path) > 4000:
        raise BadInput(f"{where}: the path {path[:60]!r}... is too long (a name over 255 bytes, "
                       "or over 4000 characters in all)")
    return str(PurePosixPath(path)) if path else path


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
