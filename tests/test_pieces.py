"""Checking and normalizing only the changed top-level statements must decide exactly as the
whole file does: random edits of real modules, both ways."""

import argparse
import json.decoder
import random
import textwrap
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gen09_python import pack, pieces
from tests.helpers import compiles

# statements that begin on a line where the one before them ends (after ``;``), or after a
# backslash continuation: no piece may be cut off there
SEMICOLONS = ("x = (1,\n2); y = 3\nz = 4  # note\nclass K:\n    a = [1,\n    2]; b = 3\n"
              "    def m(self):\n        return self  # m\n    c = 1 \\\n    ; d = 2\n\n\nw = 5\n")
MODULES = [Path(m.__file__).read_text(encoding="utf-8") for m in (textwrap, json.decoder, argparse)] + [SEMICOLONS]
SNIPPETS = ["    return x\n", "def f(:\n", "x = '''\n", "'''\n", "global y\n", "y = 1  # note\n",
            "from __future__ import annotations\n", "    pass\n", ")\n", "@decorator\n", "\n",
            "class K:\n", "    s = '# not a comment'\n", "return 1\n", "    yield\n", "\tx = 1\n",
            "async def g():\n", "    await h()\n", "await h()\n", "nonlocal z\n",
            # class bodies: a method, a body-level rule that spans statements, a dedent
            "    def m(self):\n", "        return self\n", "    global g\n", "    nonlocal n\n",
            "        yield\n", "  odd = 1\n", "def top():\n", "    x: int = 1\n", "    return\n",
            # clauses that continue the statement before them, at the top level
            "else:\n", "elif x:\n", "except ValueError:\n", "finally:\n", "# note\n"]


@st.composite
def edited(draw):
    original = draw(st.sampled_from(MODULES))
    lines = pieces.split_lines(original)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        snippet = draw(st.sampled_from(SNIPPETS))
        if op == "delete":
            del lines[i]
        elif op == "insert":
            lines.insert(i, snippet)
        elif op == "replace":
            lines[i] = snippet
        else:
            lines.insert(i, lines[i])
    return original, "".join(lines)


@settings(max_examples=300, deadline=None)
@given(edited())
def test_changed_statements_decide_like_the_whole_file(case):
    original, new = case
    whole = compiles(new)
    assert (pack.gen09_parse("python", "m.py", new, original) == []) == whole
    if whole:
        assert pack.gen09_normalize("python", new, original) == pack.strip_comments(new)


def whole_problems(text):
    """The whole file's compile error, as the gate reports it (message and line)."""
    return list(pack._compile_problems("m.py", text))


@settings(max_examples=400, deadline=None)
@given(edited())
def test_a_broken_edit_gets_the_whole_files_error_and_line(case):
    original, new = case
    assert pack.gen09_parse("python", "m.py", new, original) == whole_problems(new)


def single_line_edits(text, rng, count):
    """Seeded random one-line edits of the kind a model slips into: a character of the line
    dropped, doubled or replaced by a bracket, quote, colon or operator; an indent changed."""
    lines = text.splitlines(keepends=True)
    out = []
    while len(out) < count:
        row = rng.randrange(len(lines))
        line = lines[row]
        col = rng.randrange(max(len(line) - 1, 1))
        kind = rng.randrange(4)
        if kind == 0:
            line = line[:col] + line[col + 1:]
        elif kind == 1:
            line = line[:col] + line[col] + line[col:]
        elif kind == 2:
            line = line[:col] + rng.choice("()[]{}:'\"\\#,=+.@") + line[col + 1:]
        else:
            line = rng.choice(["", "    ", "\t", "  "]) + line.lstrip(" ")
        new = "".join(lines[:row] + [line] + lines[row + 1:])
        if new != text:
            out.append(new)
    return out


@pytest.mark.parametrize("module", [threading, argparse])
def test_single_line_edits_of_real_modules_get_the_whole_files_error(module):
    """Broken candidates are compiled from their changed statements on; the error and its
    line must be the whole file's (a few hundred seeded edits of large stdlib modules)."""
    original = Path(module.__file__).read_text(encoding="utf-8")
    broken = shortened = 0
    for new in single_line_edits(original, random.Random(9), 300):
        expected = whole_problems(new)
        assert pack.gen09_parse("python", "m.py", new, original) == expected, expected
        broken += bool(expected)
        shortened += bool(expected) and pieces.rest(original, new) is not None
    assert broken >= 100 and shortened >= broken / 2


def test_the_chunk_is_small_for_a_local_edit():
    original = MODULES[0]
    new = original.replace("    if margin:\n        text = re.sub", "    if margin and text:\n        text = re.sub")
    assert new != original
    chunk = pieces.chunk(original, new)
    assert chunk is not None and chunk.text.count("\n") < len(original.split("\n")) / 5


def test_an_edit_inside_one_method_compiles_only_that_class_body_statement():
    original = MODULES[2]  # argparse: classes of hundreds of lines
    new = original.replace("        self._prog = prog\n", "        self._prog = prog or None\n", 1)
    assert new != original
    assert pieces.class_chunk(original, new)
    broken = original.replace("        self._prog = prog\n", "        self._prog = (prog\n", 1)
    dedented = original.replace("        self._prog = prog\n", "def escaped():\n    pass\n", 1)
    assert not pieces.class_chunk(original, broken)
    assert not pieces.class_chunk(original, dedented)
    assert pack.gen09_parse("python", "m.py", broken, original) != []
    assert (pack.gen09_parse("python", "m.py", dedented, original) == []) == compiles(dedented)


@pytest.mark.parametrize("old, new", [("2); y = 3\n", "y = 3\n"), ("    2]; b = 3\n", "    b = 3\n"),
                                      ("    ; d = 2\n", "    d = 2\n")])
def test_a_statement_after_a_semicolon_is_not_cut_off_from_the_line_it_continues(old, new):
    broken = SEMICOLONS.replace(old, new)
    assert not compiles(broken)
    assert pack.gen09_parse("python", "m.py", broken, SEMICOLONS) != []
