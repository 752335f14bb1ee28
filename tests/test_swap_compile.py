"""The warm worker compiles a change inside one function's body alone (``gen09_swap._Spans``):
on real code (standard-library modules nobody here wrote), every such edit must give exactly
the code objects a compile of the whole mutated file gives — the changed function, and the
functions after it moved by the lines it gained or lost — and every other change must be
left to the whole-file compile."""

import ast
import importlib
import json
import sys
from pathlib import Path

import pytest

MODULES = ("textwrap", "json.decoder", "argparse", "fractions", "statistics", "dataclasses")


@pytest.fixture
def swap(monkeypatch, tmp_path):
    """``gen09_swap`` imported as the warm worker imports it when it is given the import-time
    lines (so no profile hook is installed in this process)."""
    ran = tmp_path / "ran.json"
    ran.write_text(json.dumps({}))
    monkeypatch.setenv("GEN09_WARM_RAN", str(ran))
    sys.modules.pop("gen09_core.testrun.gen09_swap", None)
    module = importlib.import_module("gen09_core.testrun.gen09_swap")
    assert sys.getprofile() is None
    yield module
    sys.modules.pop("gen09_core.testrun.gen09_swap", None)


def _edits(text):
    """Body edits of real functions: a statement replaced (same lines), removed (one line
    fewer) and followed by a new one (one more), for up to 15 single-line statements a file."""
    lines = text.splitlines(keepends=True)
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [s for s in node.body[1:] if s.lineno == s.end_lineno and not isinstance(s, ast.Return)]
    for stmt in found[:: max(1, len(found) // 15)]:
        at, indent = stmt.lineno - 1, lines[stmt.lineno - 1][:stmt.col_offset]
        yield "".join(lines[:at] + [f"{indent}pass\n"] + lines[at + 1:])
        yield "".join(lines[:at] + lines[at + 1:])
        yield "".join(lines[:at + 1] + [f"{indent}gen09_added = {stmt.lineno}\n"] + lines[at + 1:])


def _whole(swap, text, filename):
    return swap._walk(compile(text, filename, "exec", dont_inherit=True), {})


@pytest.mark.parametrize("name", MODULES)
def test_a_change_inside_one_body_compiles_alone_to_the_whole_files_code(swap, name):
    filename = importlib.import_module(name).__file__
    text = Path(filename).read_text(encoding="utf-8")
    old = _whole(swap, text, filename)
    spans = swap._Spans(text, old, {})
    alone = 0
    for edited in _edits(text):
        quick = spans.recompiled(filename, edited, old)
        if quick is None:
            continue
        alone += 1
        whole = _whole(swap, edited, filename)
        functions = {n for n, c in whole.items() if c.co_flags & swap.CO_NEWLOCALS}
        assert {n: quick[n] for n in functions} == {n: whole[n] for n in functions}
    assert alone >= 20  # most of these edits are compiled alone


def test_changes_outside_one_body_are_left_to_the_whole_file(swap):
    text = ("import os\n\n\nclass Box:\n    size = 1\n\n    def grow(self, by=1):\n"
            "        self.size += by\n        return os.sep\n\n\ndef free():\n    return 2\n")
    old = _whole(swap, text, "box.py")
    spans = swap._Spans(text, old, {})
    for edited in (text.replace("by=1", "by=2"),  # a default: evaluated in the class body
                   text.replace("size = 1", "size = 2"),  # class-level code
                   text.replace("return 2", "return 2\nfree = 3"),  # a module-level line added after the body
                   text + "\n\ndef more():\n    pass\n",  # lines added at the end
                   text.replace("        return os.sep", "    return os.sep")):  # a body line moved out
        assert spans.recompiled("box.py", edited, old) is None, edited
    inside = text.replace("self.size += by", "self.size -= by")
    assert spans.recompiled("box.py", inside, old)["Box.grow"] == _whole(swap, inside, "box.py")["Box.grow"]
