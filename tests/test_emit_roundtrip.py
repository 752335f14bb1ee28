"""Round trip: a candidate emitted as udiff, apply_patch or search_replace and applied again
gives byte-identical files — over real files (stdlib modules, the vendored real fixtures)
edited at random, and over real commits of this repository's own history (modifications,
additions, deletions and renames)."""

import functools
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gen09_core.apply import apply_candidate
from gen09_core.candidates import parse
from gen09_core.formats import NotRepresentable
from gen09_core.formats.emit import emit
from gen09_core.models import Applied, Candidate, Edit
from gen09_core.plugins import BUILTIN_PLUGINS, make_registry
from gen09_core.repo import Snapshot
from tests.helpers import ROOT, run_gen09

FORMATS = ("udiff", "apply_patch", "search_replace")


@functools.cache
def registry():
    """The built-in packs only (hypothesis tests cannot take the function-scoped fixture)."""
    return make_registry(allow=",".join(BUILTIN_PLUGINS))


@functools.cache
def real_files() -> list[Path]:
    stdlib = Path(os.__file__).parent
    found = sorted(p for p in stdlib.glob("*.py") if 2_000 < p.stat().st_size < 120_000)
    found += sorted(p for p in (ROOT / "tests/fixtures/real").rglob("*") if p.is_file() and p.suffix != ".md")
    return [p for p in found if b"\0" not in p.read_bytes()]


@functools.cache
def real_commits() -> list[tuple[str, str, str, str]]:
    """``(status, commit, old path, new path)`` for files changed by this repository's commits."""
    log = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%H", "-n", "400", "--no-merges"],
                         capture_output=True, text=True, check=True).stdout.split()
    changes = []
    for commit in log:
        rows = subprocess.run(["git", "-C", str(ROOT), "diff-tree", "-r", "-M", "--no-commit-id",
                               "--name-status", "--root", commit], capture_output=True, text=True).stdout
        for row in rows.splitlines():
            parts = row.split("\t")
            status = parts[0][0]
            if status in "MAD":
                changes.append((status, commit, parts[1], parts[1]))
            elif status == "R":
                changes.append((status, commit, parts[1], parts[2]))
    return changes


def _blob(commit: str, path: str) -> bytes:
    return subprocess.run(["git", "-C", str(ROOT), "show", f"{commit}:{path}"], capture_output=True,
                          check=True).stdout


def roundtrip(files: dict[str, bytes], candidate: Candidate, fmt: str):
    """Apply ``candidate`` to a repository of ``files``, emit it in ``fmt``, apply that, and
    return (first, second) as {path: bytes or None for a deletion}; None if not representable."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for rel, data in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        first = apply_candidate(registry(), Snapshot(root), candidate, None)
        assert isinstance(first, Applied), first
        try:
            record = emit(first, fmt)
        except NotRepresentable:
            return first, None
        batch = parse({"version": 1, "format": fmt, "candidates": [record]})
        second = apply_candidate(registry(), Snapshot(root), batch.candidates[0], None)
        assert isinstance(second, Applied), (second, record)
        return first, second


def as_bytes(applied: Applied) -> dict:
    return {f.path: None if f.deleted else f.new_bytes() for f in applied.files}


def _apply_patch_can_say_it(old: str, new: str) -> bool:
    """V4A's limits (no final-newline marker, a CR before a line end is read as part of the
    terminator): the cases where the emitter may refuse."""
    crlf = "\r\n" in old and "\n" not in old.replace("\r\n", "")
    pieces = [p.removesuffix("\r") if crlf else p for p in (old + "\n" + new).split("\n")]
    if any(p.endswith("\r") for p in pieces) or old.split("\n")[-1].endswith("\r"):
        return False
    if crlf and "\n" in new.replace("\r\n", ""):
        return False
    if not old:
        return not new or new.endswith("\n")
    return old.endswith("\n") == new.endswith("\n")


@st.composite
def edited_text(draw):
    path = draw(st.sampled_from(real_files()))
    text = path.read_bytes().decode("utf-8", errors="replace")
    if draw(st.booleans()):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    lines = text.split("\n")
    if draw(st.integers(0, 5)) == 0 and lines[-1] == "":
        lines.pop()  # no final newline
    new = list(lines)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(new)))
        op = draw(st.sampled_from(["delete", "copy", "text", "block"]))
        if op == "delete" and at < len(new):
            del new[at:at + draw(st.integers(1, 4))]
        elif op == "copy":  # a line that already occurs elsewhere: the emitter must widen
            new.insert(at, draw(st.sampled_from(lines)))
        elif op == "block":
            start = draw(st.integers(0, max(len(lines) - 1, 0)))
            new[at:at] = lines[start:start + draw(st.integers(1, 5))]
        else:
            new.insert(at, draw(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
                                        max_size=30)))
    if draw(st.integers(0, 5)) == 0:
        new.append("" if new and new[-1] != "" else "tail")
    sep = "\r\n" if "\r\n" in text and draw(st.booleans()) else "\n"
    return path.name, "\n".join(lines), (sep if sep == "\n" else "\n").join(new)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=edited_text())
def test_a_real_file_edited_at_random_round_trips_through_every_format(fmt, case):
    name, old, new = case
    if old == new:
        return
    candidate = Candidate("c", (Edit(name, content=new),))
    first, second = roundtrip({name: old.encode("utf-8")}, candidate, fmt)
    if second is None:
        assert fmt == "apply_patch" and not _apply_patch_can_say_it(old, new)
        return
    assert as_bytes(second) == as_bytes(first)


@pytest.mark.parametrize("fmt", FORMATS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_real_commit_round_trips_through_every_format(fmt, data):
    status, commit, old_path, new_path = data.draw(st.sampled_from(real_commits()))
    new = b"" if status == "D" else _blob(commit, new_path)
    old = b"" if status == "A" else _blob(commit + "^", old_path)
    if b"\0" in old + new:
        return
    files = {} if status == "A" else {old_path: old}
    if status == "A":
        edits = (Edit(new_path, content=new.decode()),)
    elif status == "D":
        edits = (Edit(old_path, delete=True),)
    else:
        edits = (Edit(old_path, content=new.decode()),)
        if status == "R":
            edits += (Edit(old_path, move_to=new_path),)
    if status == "M" and old == new:
        return
    first, second = roundtrip(files, Candidate("c", edits), fmt)
    if second is None:
        assert fmt == "apply_patch" and not _apply_patch_can_say_it(old.decode(), new.decode())
        return
    assert as_bytes(second) == as_bytes(first)


def test_gen09_apply_emit_prints_a_batch_that_gen09_apply_takes_back(calc_repo, tmp_path):
    from tests.helpers import EXAMPLES

    for fmt in FORMATS:
        emitted = run_gen09("apply", EXAMPLES / "candidates.json", "--repo", calc_repo, "--emit", fmt)
        assert emitted.returncode == 0, emitted.stderr
        batch = json.loads(emitted.stdout)
        assert batch["format"] == fmt and batch["candidates"]
        (tmp_path / f"{fmt}.json").write_text(emitted.stdout)
        again = run_gen09("apply", tmp_path / f"{fmt}.json", "--repo", calc_repo, "--json")
        report = json.loads(again.stdout)
        assert [c["status"] for c in report["candidates"]] == ["valid"] * len(batch["candidates"])
    both = run_gen09("apply", EXAMPLES / "candidates.json", "--repo", calc_repo, "--emit", "udiff", "--json")
    assert both.returncode == 2 and "choose one" in both.stderr
