"""The ``editor`` input format: the commands of Anthropic's text-editor tool, with the tool's
own field names:

- ``{"command": "str_replace", "path", "old_str", "new_str"}`` — ``old_str`` must occur
  exactly once (inside the target span when one is given); ``new_str`` defaults to "";
- ``{"command": "insert", "path", "insert_line", "new_str"}`` — ``new_str`` goes in as
  whole lines after line ``insert_line`` (0: at the top);
- ``{"command": "create", "path", "file_text"}`` — refused (``file_exists``) when the file
  exists.

As in every gen09 format, all commands of a candidate are matched against the original
files (not one after another), and two commands touching the same lines are
``overlapping_edits``; an insert occupies the line it follows. ``view`` and ``undo_edit``
do not edit, so a candidate holding them is malformed.
"""

from __future__ import annotations

from gen09_core.formats import MalformedPatch
from gen09_core.models import Edit, Locate

FIELDS = {
    "str_replace": ({"path", "old_str"}, {"new_str"}),
    "insert": ({"path", "insert_line", "new_str"}, set()),
    "create": ({"path", "file_text"}, set()),
}


def parse(commands) -> tuple[Edit, ...]:
    """The edits of a list of editor commands; ``MalformedPatch.line`` is the 1-based
    number of the failing command."""
    if not isinstance(commands, list) or not commands:
        raise MalformedPatch(1, "commands must be a non-empty list")
    edits = []
    for number, command in enumerate(commands, 1):
        edits.append(_edit(command, number))
    return tuple(edits)


def _edit(command, number: int) -> Edit:
    if not isinstance(command, dict):
        raise MalformedPatch(number, "a command must be an object")
    name = command.get("command")
    if name not in FIELDS:
        raise MalformedPatch(number, f"command {name!r} is not an edit (use str_replace, insert or create)")
    required, optional = FIELDS[name]
    keys = set(command) - {"command"}
    if missing := sorted(required - keys):
        raise MalformedPatch(number, f"{name} needs {', '.join(missing)}")
    if extra := sorted(keys - required - optional):
        raise MalformedPatch(number, f"{name} does not take {', '.join(extra)}")
    for key in keys - {"insert_line"}:
        if not isinstance(command[key], str):
            raise MalformedPatch(number, f"{name}: {key} must be a string")
    path = command["path"]
    if name == "str_replace":
        if not command["old_str"]:
            raise MalformedPatch(number, "str_replace: old_str is empty")
        return Edit(path, search=command["old_str"], replace=command.get("new_str", ""))
    if name == "insert":
        line = command["insert_line"]
        if isinstance(line, bool) or not isinstance(line, int) or line < 0:
            raise MalformedPatch(number, "insert: insert_line must be an integer >= 0")
        return Edit(path, replace=command["new_str"], locate=Locate(after_line=line))
    return Edit(path, content=command["file_text"], create=True)
