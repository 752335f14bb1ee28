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
    "description": "Either search + replace, content (the whole new file), delete: true (remove "
                   "the file) or move_to alone (rename it, after the other edits of the file).",
    "properties": {"file": _TEXT, "search": _TEXT, "replace": _TEXT, "content": _TEXT,
                   "delete": {"const": True}, "move_to": _TEXT},
}
_COMMAND = {
    "type": "object", "required": ["command"],
    "description": "A text-editor tool command: str_replace (path, old_str, new_str), insert "
                   "(path, insert_line, new_str) or create (path, file_text).",
    "properties": {"command": _TEXT, "path": _TEXT, "old_str": _TEXT, "new_str": _TEXT,
                   "insert_line": {"type": "integer", "minimum": 0}, "file_text": _TEXT},
}
_CANDIDATE = {
    "type": "object", "additionalProperties": False,
    "description": "Either edits, or a bare search + replace / content record on target.file; "
                   "in a udiff or apply_patch batch a patch, in an editor batch commands.",
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "edits": {"type": "array", "minItems": 1, "maxItems": MAX_EDITS, "items": _EDIT},
        "search": _TEXT, "replace": _TEXT, "content": _TEXT,
        "patch": _TEXT,
        "commands": {"type": "array", "minItems": 1, "maxItems": MAX_EDITS, "items": _COMMAND},
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
        "format": {"enum": ["search_replace", "whole_file", "udiff", "apply_patch", "editor"]},
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
        if _payload(data.get("format"), record, where):
            candidates.append(_formatted(data["format"], cid, record, where))
            continue
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


_PAYLOAD = {"udiff": "patch", "apply_patch": "patch", "editor": "commands"}


def _payload(fmt: str | None, record: dict, where: str) -> bool:
    """True for a record of a udiff / apply_patch / editor batch (which must carry exactly
    its format's payload); ``BadInput`` for a payload in the wrong batch."""
    key = _PAYLOAD.get(fmt)
    present = {"patch", "commands"} & record.keys()
    if key is None:
        if present:
            raise BadInput(f"{where}: {sorted(present)[0]} needs a batch format of "
                           + ("udiff or apply_patch" if "patch" in present else "editor"))
        return False
    others = record.keys() - {"id", key}
    if key not in record or others:
        raise BadInput(f"{where}: a {fmt} candidate is {{\"id\", \"{key}\"}}"
                       + (f" (has {', '.join(sorted(others))})" if others else f" (no {key})"))
    return True


def _formatted(fmt: str, cid: str, record: dict, where: str) -> Candidate:
    """Parse one udiff / apply_patch / editor candidate (the format's module loads lazily)."""
    from attrs import evolve

    from gen09_core.formats import parse_candidate
    from gen09_core.models import Rejection

    candidate = parse_candidate(fmt, cid, record[_PAYLOAD[fmt]], where.split(": ", 1)[-1])
    try:
        edits = tuple(evolve(e, file=_posix(e.file, f"{e.file}"),
                             move_to=None if e.move_to is None else _posix(e.move_to, e.move_to))
                      for e in candidate.edits)
    except BadInput as exc:
        return Candidate(cid, (), Rejection("apply", "malformed_patch", f"{fmt}: {exc}"))
    return Candidate(cid, edits, candidate.malformed)


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
    shape = {"search", "replace", "content", "delete"} & record.keys()
    move_to = record.get("move_to")
    if shape not in ({"search", "replace"}, {"content"}, {"delete"}) and not (move_to and not shape):
        raise BadInput(f"{where}: needs search + replace, content, delete or move_to (has "
                       f"{', '.join(sorted(shape | ({'move_to'} if move_to else set()))) or 'none'})")
    if move_to is not None and shape:
        raise BadInput(f"{where}: move_to goes alone (edit the file's text in other edits of the "
                       "same file)")
    return Edit(_posix(file, f"{where}.file"), record.get("search"), record.get("replace"),
                record.get("content"), delete=bool(record.get("delete")),
                move_to=None if move_to is None else _posix(move_to, f"{where}.move_to"))


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
