"""The ``apply_patch`` input format: OpenAI's V4A patch grammar, as Codex's models emit it::

    *** Begin Patch
    *** Add File: PATH            then the new file's lines, each starting with "+"
    *** Delete File: PATH
    *** Update File: PATH
    *** Move to: NEW_PATH         (optional, right after Update File)
    @@ ANCHOR                     (optional, may repeat: each narrows the search)
     context / -removed / +added lines
    *** End of File               (optional: the chunk ends the file)
    *** End Patch

Each chunk (the lines between ``@@`` markers) becomes one line-based search/replace edit,
located by ``gen09_core.locate``: its anchors must each match one line (surrounding
whitespace ignored), in order, and its context and removed lines must then occur exactly
once — where Codex takes the first match, gen09 requires a unique one. V4A lines carry no
"no newline at end of file" marker, so a chunk ending a file keeps the file's final-newline
state. An empty line inside a chunk is read as an empty context line.
"""

from __future__ import annotations

from gen09_core.formats import MalformedPatch
from gen09_core.models import Edit, Locate

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
EOF_MARK = "*** End of File"


def parse(text: str) -> tuple[Edit, ...]:
    """The edits of V4A patch ``text``; ``MalformedPatch`` names the failing line."""
    if not isinstance(text, str):
        raise MalformedPatch(1, "the patch must be a string")
    lines = [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]
    while lines and lines[-1].strip() == "":
        lines.pop()
    n = 0
    while n < len(lines) and lines[n].strip() == "":
        n += 1
    if n == len(lines) or lines[n].strip() != BEGIN:
        raise MalformedPatch(n + 1, f"the patch must start with {BEGIN!r}")
    if lines[-1].strip() != END:
        raise MalformedPatch(len(lines), f"the patch must end with {END!r}")
    n += 1
    edits: list[Edit] = []
    last = len(lines) - 1
    while n < last:
        line = lines[n]
        if line.startswith(ADD):
            n = _add(lines, n, last, edits)
        elif line.startswith(DELETE):
            edits.append(Edit(_path(line, DELETE, n), delete=True))
            n += 1
        elif line.startswith(UPDATE):
            n = _update(lines, n, last, edits)
        else:
            raise MalformedPatch(n + 1, "expected '*** Add File:', '*** Delete File:', '*** Update "
                                 f"File:' or '{END}', got {line[:80]!r}")
    return tuple(edits)


def _path(line: str, marker: str, n: int) -> str:
    path = line[len(marker):].strip()
    if not path:
        raise MalformedPatch(n + 1, f"{marker.strip()} needs a path")
    return path


def _add(lines: list[str], n: int, last: int, edits: list[Edit]) -> int:
    path = _path(lines[n], ADD, n)
    n += 1
    body = []
    while n < last and not lines[n].startswith("*** "):
        if not lines[n].startswith("+"):
            raise MalformedPatch(n + 1, f"every line of an added file starts with '+', got {lines[n][:80]!r}")
        body.append(lines[n][1:] + "\n")
        n += 1
    edits.append(Edit(path, content="".join(body), create=True))
    return n


def _update(lines: list[str], n: int, last: int, edits: list[Edit]) -> int:
    path = _path(lines[n], UPDATE, n)
    n += 1
    move_to = None
    if n < last and lines[n].startswith(MOVE):
        move_to = _path(lines[n], MOVE, n)
        n += 1
    chunks = 0
    while n < last and not _file_op(lines[n]):
        anchors: list[str] = []
        while n < last and lines[n].startswith("@@"):
            anchor = lines[n][2:]
            if anchor.strip():
                anchors.append(anchor.strip())
            n += 1
        start = n
        search, replace, at_end = [], [], False
        while n < last and not lines[n].startswith("@@") and not _file_op(lines[n]):
            line = lines[n]
            if line.rstrip() == EOF_MARK:
                at_end = True
                n += 1
                break
            tag = line[:1]
            if tag in (" ", ""):
                search.append(line[1:] + "\n")
                replace.append(line[1:] + "\n")
            elif tag == "-":
                search.append(line[1:] + "\n")
            elif tag == "+":
                replace.append(line[1:] + "\n")
            else:
                raise MalformedPatch(n + 1, f"a chunk line starts with ' ', '-' or '+', got {line[:80]!r}")
            n += 1
        if n < last and lines[n].rstrip() == EOF_MARK:
            raise MalformedPatch(n + 1, f"{EOF_MARK!r} repeated")
        if not search and not replace:
            if n == start and not anchors:
                raise MalformedPatch(n + 1, f"expected a chunk, got {lines[n][:80]!r}")
            raise MalformedPatch(start, "a chunk without lines")
        edits.append(Edit(path, search="".join(search), replace="".join(replace),
                          locate=Locate(anchors=tuple(anchors), at_end=at_end, loose_eol=True)))
        chunks += 1
    if not chunks and move_to is None:
        raise MalformedPatch(n + 1, f"'*** Update File: {path}' has no chunks")
    if move_to is not None:
        edits.append(Edit(path, move_to=move_to))
    return n


def _file_op(line: str) -> bool:
    return line.startswith((ADD, DELETE, UPDATE))
