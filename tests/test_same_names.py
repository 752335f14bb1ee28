"""The gate skips ruff for an edit that changes only operators and constants
(``pieces.same_names``): real ruff must report the original's findings for every such edit of
real modules, and the gate must decide without running ruff at all."""

import concurrent.futures
import dataclasses
import inspect
import io
import keyword
import random
import threading
import tokenize
from collections import Counter
from pathlib import Path

import pytest

from gen09_core.ab.templates import variants
from gen09_core.gate import gate
from gen09_core.models import Applied, Candidate, ChangedFile, Edit, SourceFile
from gen09_core.plugins import make_registry
from gen09_python import pieces
from gen09_python.lint import ruff_findings
from tests.helpers import compiles

RULES = ("F401", "F821")
# real modules, with findings of both rules (inspect, threading) and a package __init__
MODULES = {"inspect.py": inspect, "threading.py": threading, "dataclasses.py": dataclasses,
           "futures/__init__.py": concurrent.futures}


def name_edits(text, rng, count):
    """Single-token edits that change names or strings: a name replaced by another name of
    the file or an unbound one, a string changed, an import dropped."""
    lines = text.splitlines(keepends=True)
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
              if t.type in (tokenize.NAME, tokenize.STRING) and t.start[0] == t.end[0]
              and not keyword.iskeyword(t.string)]
    names = sorted({t.string for t in tokens if t.type == tokenize.NAME})
    out = []
    while len(out) < count:
        tok = rng.choice(tokens)
        row, (col, end) = tok.start[0] - 1, (tok.start[1], tok.end[1])
        line = lines[row]
        if tok.type == tokenize.STRING:
            alt = tok.string[:-1] + "x" + tok.string[-1] if len(tok.string) > 2 else tok.string
        else:
            alt = rng.choice([*rng.sample(names, 3), "undefined_gen09"])
        if line.lstrip().startswith(("import ", "from ")) and rng.random() < 0.5:
            alt, col, end = "pass", len(line) - len(line.lstrip()), len(line.rstrip("\r\n"))
        new = "".join(lines[:row] + [line[:col] + alt + line[end:]] + lines[row + 1:])
        if new != text:
            out.append(new)
    return out


def test_ruff_reports_the_original_findings_for_every_edit_said_to_keep_the_names():
    rng = random.Random(17)
    cases = []  # (path, original, new)
    for path, module in MODULES.items():
        text = Path(module.__file__).read_text(encoding="utf-8")
        rewrites = variants(text)
        for search, replace in rng.sample(rewrites, min(150, len(rewrites))):
            cases.append((path, text, text.replace(search, replace, 1)))
        cases += [(path, text, new) for new in name_edits(text, rng, 40)]
    cases = [case for case in cases if compiles(case[2])]
    originals = {path: text for path, text, _ in cases}
    found = ruff_findings([*originals.items(), *((p, new) for p, _, new in cases)], RULES)
    before = dict(zip(originals, found, strict=False))
    said, differ = 0, 0
    for (path, original, new), findings in zip(cases, found[len(originals):], strict=True):
        same = Counter((f.code, f.message) for f in findings) == Counter(
            (f.code, f.message) for f in before[path])
        if pieces.same_names(original, new):
            said += 1
            assert same, (path, [line for line in new.splitlines() if line not in original.splitlines()])
        differ += not same
    assert said >= 300  # most operator and constant rewrites are recognized
    assert differ >= 10  # and the name edits do change findings: the check can fail


@pytest.mark.parametrize(("before", "after", "expected"), [
    ("x = a + 1\n", "x = a - 2\n", True),
    ("x = a < b and c\n", "x = a is not b or c\n", True),
    ("x = f(a, k=None)\n", "x = f(a, k=True)\n", True),
    ("x = a + 1\n", "x = b + 1\n", False),  # another name
    ("x = 1\n", "x == 1\n", False),  # a binding becomes a use
    ("x: 'A' = 1\n", "x: 'B' = 1\n", False),  # a string annotation
    ("x = f'{a + 1}'\n", "x = f'{a - 1}'\n", False),  # f-strings are compared exactly
    ("if 0:\n    import os\n", "if 1:\n    import os\n", False),  # ruff: `if 0:` is type-checking only
    ("while 1:\n    pass\n", "while 0:\n    pass\n", False),
    ("__all__ = ['a'] + ['b']\n", "__all__ = ['a'] - ['b']\n", False),  # decides the exports
    ("x = not a\n", "x = a\n", True),  # a unary operator dropped
    ("if not a:\n    pass\n", "if a:\n    pass\n", True),
    ("if not 0:\n    import os\n", "if 0:\n    import os\n", False),  # now type-checking only
    ("if not TYPE_CHECKING:\n    import os\n", "if TYPE_CHECKING:\n    import os\n", False),
    ("x = (a, b)\n", "x = [a, b]\n", False),  # a different tree
])
def test_which_edits_keep_the_names(before, after, expected):
    original = f"import a\n\n\ndef g():\n    return 1\n\n\n{before}\n\nclass K:\n    y = 1\n"
    assert pieces.same_names(original, original.replace(before, after)) is expected


def test_an_edit_inside_a_method():
    text = Path(threading.__file__).read_text(encoding="utf-8")
    line = "        self._value = value\n"
    assert text.count(line) == 1
    old = "        if value < 0:\n"
    assert pieces.class_chunk(text, text.replace(old, "        if value <= 0:\n"))  # in Semaphore.__init__
    assert pieces.same_names(text, text.replace(old, "        if value <= 0:\n"))
    assert not pieces.same_names(text, text.replace(line, "        self._value = valu\n"))


def test_the_gate_decides_operator_edits_without_ruff(monkeypatch, tmp_path):
    """With no ruff to run, operator and constant edits still pass (nothing is linted) while
    a name edit needs ruff and fails for want of it."""
    from gen09_core.errors import EnvironmentFailure

    monkeypatch.setenv("GEN09_RUFF", str(tmp_path / "no-ruff"))
    text = Path(threading.__file__).read_text(encoding="utf-8")
    source = SourceFile("threading.py", text, False)
    registry = make_registry()

    def applied(new):
        return Applied(Candidate("c", (Edit("threading.py", content=new),)),
                       (ChangedFile("threading.py", source, new),))

    rewrites = [text.replace(s, r, 1) for s, r in variants(text)[:40]]
    rewrites = [new for new in rewrites if compiles(new) and pieces.same_names(text, new)]
    assert len(rewrites) >= 5
    assert [r.rejection for r in gate(registry, [applied(new) for new in rewrites])] == [None] * len(rewrites)
    with pytest.raises(EnvironmentFailure, match="could not run ruff"):
        gate(registry, [applied(text.replace("self._value = value\n", "self._value = valu\n", 1))])
