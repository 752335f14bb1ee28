"""Over random files and random edits: bytes outside the replaced region never change, and
the repository on disk is never modified without --write."""

import functools
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from gen09_core.candidates import parse
from gen09_core.pipeline import run_batch
from gen09_core.plugins import make_registry


@functools.cache
def _registry():
    """The built-in registry, built on first use (after the session fixture limited plugins)."""
    return make_registry()

LINES = st.lists(st.text(alphabet="ab \t#é(", max_size=8), min_size=1, max_size=12)


@st.composite
def file_and_edit(draw):
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(draw(LINES)) + draw(st.sampled_from(["", newline]))
    bom = draw(st.booleans())
    start = draw(st.integers(0, max(len(text) - 1, 0)))
    end = draw(st.integers(start + 1, max(len(text), start + 1)))
    search = text[start:end] or "zz"
    replace = draw(st.text(alphabet="xyz\n ", max_size=6))
    return text, bom, search, replace


def occurrences(text, search):
    return [i for i in range(len(text)) if text.startswith(search, i)]


@settings(max_examples=300, deadline=None)
@given(file_and_edit())
def test_edits_touch_only_their_region_and_never_the_disk(case):
    text, bom, search, replace = case
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "f.txt")
        path.write_bytes(raw)
        batch = parse({"version": 1, "candidates": [
            {"id": "c", "edits": [{"file": "f.txt", "search": search, "replace": replace}]}]})
        outcome = run_batch(batch, tmp, _registry()).outcomes[0]
        assert path.read_bytes() == raw
        assert [p.name for p in Path(tmp).iterdir()] == ["f.txt"]
    if "\r\n" in text and "\r" not in search:  # LF-written edits adapt to a CRLF file
        search, replace = search.replace("\n", "\r\n"), replace.replace("\n", "\r\n")
    hits = occurrences(text, search)
    if len(hits) == 1 and search != replace:
        assert outcome.status == "valid"
        i = hits[0]
        new = outcome.applied.files[0].new_bytes()
        prefix = (b"\xef\xbb\xbf" if bom else b"") + text[:i].encode()
        suffix = text[i + len(search):].encode()
        assert new.startswith(prefix) and new.endswith(suffix)
        assert new == prefix + replace.encode() + suffix
    else:
        assert outcome.status == "rejected"
        assert outcome.rejection.reason in {"no_match", "ambiguous_match", "no_change"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc", min_size=1, max_size=3), min_size=1, max_size=40),
       st.data())
def test_the_reported_diff_applies_with_git(lines, data):
    import subprocess

    text = "\n".join(lines) + "\n"
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start, len(lines) - 1))
    search = "\n".join(lines[start:end + 1]) + "\n"
    replace = data.draw(st.text(alphabet="xyz\n", max_size=12))
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "f.txt").write_text(text)
        batch = parse({"version": 1, "candidates": [
            {"id": "c", "edits": [{"file": "f.txt", "search": search, "replace": replace}]}]})
        outcome = run_batch(batch, tmp, _registry()).outcomes[0]
        if outcome.status != "valid":
            return
        done = subprocess.run(["git", "apply", "--unidiff-zero", "-"], input=outcome.diff, text=True,
                              cwd=tmp, capture_output=True)
        assert done.returncode == 0, (outcome.diff, done.stderr)
        assert Path(tmp, "f.txt").read_bytes() == outcome.applied.files[0].new_bytes()


ODD = ["a", "b", " ", "\t", "\r", "\x0c", "\x0b", "\x85", "\u2028", "\u2029", "\x1c", "é"]
ODD_LINES = st.lists(st.text(alphabet=ODD, max_size=6), max_size=8)


@st.composite
def odd_file_and_candidate(draw):
    """A file with characters that str.splitlines would break at, CR/LF endings, a BOM or
    not, a final newline or not; and a candidate editing it, emptying it, or creating a
    new (possibly empty) file."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(draw(ODD_LINES)) + draw(st.sampled_from(["", newline]))
    bom = draw(st.booleans())
    kind = draw(st.sampled_from(["search", "search", "content", "new"]))
    if kind == "new":
        edit = {"file": "d/new.txt", "content": draw(st.sampled_from(["", "x", "x\n", "\r\n", "a\x0cb"]))}
    elif kind == "content":
        edit = {"file": "f.txt", "content": newline.join(draw(ODD_LINES)) + draw(st.sampled_from(["", "\n"]))}
    else:
        start = draw(st.integers(0, max(len(text) - 1, 0)))
        end = draw(st.integers(start + 1, max(len(text), start + 1)))
        edit = {"file": "f.txt", "search": text[start:end] or "zz",
                "replace": draw(st.text(alphabet=ODD + ["\n"], max_size=6))}
    return (b"\xef\xbb\xbf" if bom else b"") + text.encode(), edit


@settings(max_examples=150, deadline=None)
@given(odd_file_and_candidate())
def test_every_valid_diff_applies_with_git_apply_and_patch(case):
    import shutil
    import subprocess

    raw, edit = case
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp, "repo")
        repo.mkdir()
        (repo / "f.txt").write_bytes(raw)
        batch = parse({"version": 1, "candidates": [{"id": "c", "edits": [edit]}]})
        outcome = run_batch(batch, repo, _registry()).outcomes[0]
        if outcome.status != "valid":
            return
        changed = outcome.applied.files[0]
        for number, tool in enumerate((["git", "apply", "--check"], ["git", "apply"], ["patch", "-p1", "-s"])):
            copy = Path(tmp, str(number))
            shutil.copytree(repo, copy)
            done = subprocess.run(tool, input=outcome.diff.encode(), cwd=copy, capture_output=True)
            assert done.returncode == 0, (tool, outcome.diff, done.stdout, done.stderr)
            if "--check" not in tool:
                assert (copy / changed.path).read_bytes() == changed.new_bytes(), (tool, outcome.diff)
