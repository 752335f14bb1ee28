"""Reading JSON inputs: size-capped, UTF-8, located parse errors, JSON Schema validation.
Every problem is one ``BadInput`` message naming the source and where."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from gen09_core.errors import BadInput


def read_json(source: str, max_bytes: int, allow_stdin: bool = False):
    """Parse the JSON file ``source`` (``-`` for stdin when allowed)."""
    if source == "-" and allow_stdin:
        import sys

        raw = sys.stdin.buffer.read(max_bytes + 1)
    else:
        path = Path(source)
        if not path.is_file():
            raise BadInput(f"{source}: no such file")
        if path.stat().st_size > max_bytes:
            raise BadInput(f"{source}: larger than {max_bytes} bytes")
        raw = path.read_bytes()
    if len(raw) > max_bytes:
        raise BadInput(f"{source}: larger than {max_bytes} bytes")
    try:
        return json.loads(raw)
    except UnicodeDecodeError:
        raise BadInput(f"{source}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise BadInput(f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: "
                       f"{exc.msg}") from None


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
