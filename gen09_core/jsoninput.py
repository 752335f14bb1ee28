"""Reading JSON inputs: size-capped, UTF-8, located parse errors, JSON Schema validation.
Every problem is one ``BadInput`` message naming the source and where."""

from __future__ import annotations

import functools
import json
import re

from gen09_core.errors import BadInput


def read_json(source: str, max_bytes: int, allow_stdin: bool = False):
    """Parse the JSON file ``source``: a path, a pipe (``/dev/stdin``, ``<(...)``) or, when
    allowed, ``-`` for stdin. Strings must be valid Unicode (no lone surrogate escapes)."""
    raw = _read(source, max_bytes, allow_stdin)
    if len(raw) > max_bytes:
        raise BadInput(f"{source}: larger than {max_bytes} bytes")
    try:
        data = json.loads(raw)
    except UnicodeDecodeError:
        raise BadInput(f"{source}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                       f"{exc.msg}") from None
    except RecursionError:
        raise BadInput(f"{source}: JSON nested too deeply") from None
    if _ESCAPED_SURROGATE.search(raw):
        try:
            where = _surrogate(data, "$")
        except RecursionError:
            raise BadInput(f"{source}: JSON nested too deeply") from None
        if where:
            raise BadInput(f"{source}: {where}: a lone surrogate escape (\\ud800-\\udfff) is "
                           "not a Unicode character")
    return data


def _read(source: str, max_bytes: int, allow_stdin: bool) -> bytes:
    if source == "-" and allow_stdin:
        import sys

        try:
            return sys.stdin.buffer.read(max_bytes + 1)
        except (AttributeError, OSError, ValueError):
            raise BadInput("-: stdin is closed") from None
    try:
        with open(source, "rb") as handle:
            return handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise BadInput(f"{source}: no such file") from None
    except (OSError, ValueError) as exc:
        from gen09_core.repo import why

        raise BadInput(f"{source}: cannot read it ({why(exc)})") from None


_ESCAPED_SURROGATE = re.compile(rb"\\[uU][dD][89a-fA-F]")


def _surrogate(data, where: str) -> str | None:
    """The JSON path of the first string (value or key) holding a lone surrogate."""
    if isinstance(data, str):
        try:
            data.encode("utf-8")
        except UnicodeEncodeError:
            return where
    elif isinstance(data, list):
        for i, item in enumerate(data):
            found = _surrogate(item, f"{where}[{i}]")
            if found:
                return found
    elif isinstance(data, dict):
        for key, value in data.items():
            found = _surrogate(key, f"{where} (a key)") or _surrogate(value, f"{where}.{key}")
            if found:
                return found
    return None


def validate(schema: dict, data, source: str) -> None:
    """Check ``data`` against ``schema``; the error names the JSON path (``$.a[0].b``)."""
    import fastjsonschema

    try:
        _compiled(json.dumps(schema, sort_keys=True))(data)
    except fastjsonschema.JsonSchemaValueException as exc:
        where = exc.name.replace("data", "$", 1) if exc.name else "$"
        message = exc.message.replace(exc.name or "", "", 1).strip()
        raise BadInput(f"{source}: {where}: {message}") from None


@functools.cache
def _compiled(schema_json: str):
    import fastjsonschema

    return fastjsonschema.compile(json.loads(schema_json))
