"""Stage (d) over a whole candidate: group its edits by file, check every path, then create,
delete, rename or patch each file in memory. The per-file text edits go through the
applicator hook (``gen09_core.apply``) after line-based edits are pinned
(``gen09_core.locate``); the same input always gives the same bytes or the same rejection.

File operations are first-class edits: a deletion must name an existing file and be the
file's only edit; a rename's destination must be a repo-relative path that does not exist
and that no other edit of the candidate touches; a creation (``create``) is refused when the
file exists (``file_exists``).
"""

from __future__ import annotations

from gen09_core import locate
from gen09_core.models import Applied, Candidate, ChangedFile, Edit, Rejection
from gen09_core.repo import MAX_FILE_BYTES, Snapshot


def apply_candidate(registry, snapshot: Snapshot, candidate: Candidate, target,
                    tolerant: bool = False) -> Applied | Rejection:
    """Apply one candidate to the snapshot in memory; ``tolerant`` enables the
    indentation/trailing-whitespace matching tier of search/replace edits."""
    if candidate.malformed is not None:
        return candidate.malformed
    by_file: dict[str, list[Edit]] = {}
    for edit in candidate.edits:
        by_file.setdefault(edit.file, []).append(edit)
    changed: list[ChangedFile] = []
    tiers: list[str] = []
    named: dict[str, str] = {}  # real path -> the path the candidate named it by
    moves: list[tuple[str, str, ChangedFile]] = []
    for path, edits in by_file.items():
        source = snapshot.read(path)
        if isinstance(source, Rejection):
            return source
        real = snapshot.real(path)  # what --write will write: symlinks resolved
        if real in named:
            return _reject("aliased_file", f"{named[real]} and {path} are the same file ({real})")
        named[real] = path
        result = _one_file(registry, source, path, real, tuple(edits), target, tolerant)
        if isinstance(result, Rejection):
            return result
        files, file_tiers, move_to = result
        tiers += file_tiers
        if move_to is not None:
            moves.append((path, move_to, files[-1]))
            files = files[:-1]
        changed += files
    for path, dest, moved in moves:
        rejection = _destination(snapshot, path, dest, named)
        if isinstance(rejection, Rejection):
            return rejection
        real_dest = snapshot.real(dest)
        named[real_dest] = dest
        changed.append(ChangedFile(real_dest, moved.original, moved.new_text, moved.bom,
                                   moved_from=moved.path))
        tiers.append("move")
    if not changed:
        return _reject("no_change", "the candidate leaves every file byte-identical")
    for file in changed:
        if len(file.new_text) > MAX_FILE_BYTES // 4 and len(file.new_bytes()) > MAX_FILE_BYTES:
            return _reject("too_large", f"{file.path} would be larger than the {MAX_FILE_BYTES}-byte "
                           "file limit")
    return Applied(candidate, tuple(changed), tuple(tiers))


def _one_file(registry, source, path, real, edits, target, tolerant):
    """The changed files for one named file: ``([...], tiers, move_to)``; with a rename the
    last file is the renamed text (still under the old path), or a rejection."""
    deletes = [e for e in edits if e.delete]
    moves = [e for e in edits if e.move_to is not None]
    creates = [e for e in edits if e.create]
    if deletes:
        if len(edits) > 1:
            return _reject("overlapping_edits", f"{path} is deleted and also edited by the candidate")
        if source is None:
            return _reject("file_missing", f"{path} does not exist in the repository (cannot delete it)")
        expected = deletes[0].search
        if expected is not None and _lf(expected) != _lf(source.text):
            return _reject("no_match", f"{path}: the deleted text in the patch is not the file's content")
        return [ChangedFile(real, source, "", source.bom, deleted=True)], ["delete"], None
    if len(moves) > 1:
        return _reject("overlapping_edits", f"{path} is renamed more than once by the candidate")
    text_edits = tuple(e for e in edits if e.move_to is None)
    if creates:
        if source is not None:
            return _reject("file_exists", f"{path} already exists; a create edit may not replace it")
        if len(edits) > 1:
            return _reject("overlapping_edits", f"{path} is created and also edited by the candidate")
    if source is None:
        if len(text_edits) == 1 and text_edits[0].whole_file and not moves:
            return [ChangedFile(real, None, text_edits[0].content)], ["whole_file"], None
        return _reject("file_missing", f"{path} does not exist in the repository")
    new_text, tiers = source.text, []
    if text_edits:
        span = target.span if target is not None and target.file == path else None
        pinned = locate.resolve(source, text_edits, span)
        if isinstance(pinned, Rejection):
            return pinned
        result = registry.apply_edits(source, pinned, span, tolerant)
        if isinstance(result, Rejection):
            return result
        new_text, tiers = result.text, list(result.tiers)
    if moves:
        return ([ChangedFile(real, source, "", source.bom, deleted=True),
                 ChangedFile(real, source, new_text, source.bom)], tiers, moves[0].move_to)
    files = [ChangedFile(real, source, new_text, source.bom)] if new_text != source.text else []
    return files, tiers, None


def _destination(snapshot: Snapshot, path: str, dest: str, named: dict) -> Rejection | None:
    """A rename's destination: inside the repository, absent, touched by no other edit."""
    found = snapshot.read(dest)
    if isinstance(found, Rejection):
        return found
    real = snapshot.real(dest)
    if real in named:
        return _reject("overlapping_edits", f"{path} is renamed to {dest}, which the candidate also "
                       f"edits (as {named[real]})")
    if found is not None:
        return _reject("file_exists", f"{path} cannot be renamed to {dest}: that file exists")
    return None


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _reject(reason: str, detail: str) -> Rejection:
    return Rejection("apply", reason, detail)
