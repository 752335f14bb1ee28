"""The udiff, apply_patch and editor input formats: each parses into the one edit model, so
apply, gate, dedup, the report and --write behave as for search/replace; renames and
deletions are first-class edits; malformed patches are per-candidate rejections."""

import json
import subprocess
import sys

import jsonschema
import pytest

from gen09_core.candidates import SCHEMA, parse
from gen09_core.errors import BadInput
from gen09_core.formats import MalformedPatch, udiff
from gen09_core.formats import apply_patch as v4a
from gen09_core.pipeline import run_batch
from gen09_core.write import write_files
from tests.helpers import run_gen09

OPS = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
TWICE = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "ops.py").write_text(OPS)
    (root / "twice.py").write_text(TWICE)
    (root / "pkg" / "crlf.py").write_bytes(b"x = 1\r\ny = 2\r\nz = 3\r\n")
    (root / "notes.txt").write_text("alpha\nbeta")  # no final newline
    return root


def run(fmt, payloads, repo, registry, target=None):
    key = "commands" if fmt == "editor" else "patch"
    data = {"version": 1, "format": fmt,
            "candidates": [{"id": f"c{k}", key: p} for k, p in enumerate(payloads, 1)]}
    if target:
        data["target"] = target
    jsonschema.validate(data, SCHEMA)
    return run_batch(parse(data), repo, registry)


def files(outcome):
    return {f.path: (None if f.deleted else f.new_text) for f in outcome.applied.files}


def reason(outcome):
    return outcome.rejection.reason if outcome.rejection else outcome.status


# ---- udiff


def test_a_udiff_hunk_is_located_by_its_lines_never_by_its_wrong_line_numbers(repo, registry):
    patch = ("--- a/ops.py\n+++ b/ops.py\n@@ -40,3 +40,3 @@\n \n def sub(a, b):\n"
             "-    return a - b\n+    return b - a\n")
    out = run("udiff", [patch], repo, registry).outcomes[0]
    assert out.status == "valid"
    assert files(out) == {"ops.py": OPS.replace("a - b", "b - a")}


def test_a_udiff_hunk_must_match_exactly_once_and_exactly(repo, registry):
    ambiguous = "--- a/twice.py\n+++ b/twice.py\n@@ -1,1 +1,1 @@\n-    return 1\n+    return 2\n"
    fuzzy = "--- a/ops.py\n+++ b/ops.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a +  b\n+    return a\n"
    unique = ("--- a/twice.py\n+++ b/twice.py\n@@ -5,2 +5,2 @@\n def g():\n-    return 1\n"
              "+    return 2\n")
    report = run("udiff", [ambiguous, fuzzy, unique], repo, registry)
    assert [reason(o) for o in report.outcomes] == ["ambiguous_match", "no_match", "valid"]
    assert "lines 2, 6" in report.outcomes[0].rejection.detail
    assert files(report.outcomes[2])["twice.py"] == TWICE[:-2] + "2\n"


def test_a_udiff_hunk_outside_the_target_span_is_outside_span(repo, registry):
    patch = "--- a/ops.py\n+++ b/ops.py\n@@ @@\n-    return a - b\n+    return b - a\n"
    target = {"file": "ops.py", "span": [1, 2]}
    out = run("udiff", [patch], repo, registry, target).outcomes[0]
    assert reason(out) == "outside_span" and "line 6" in out.rejection.detail


def test_udiff_creates_deletes_and_renames_files_without_or_with_git_prefixes(repo, registry):
    create = "--- /dev/null\n+++ b/pkg/new.py\n@@ -0,0 +1,2 @@\n+A = 1\n+B = 2\n"
    delete = ("diff --git a/ops.py b/ops.py\ndeleted file mode 100644\n--- a/ops.py\n+++ /dev/null\n"
              "@@ -1,6 +0,0 @@\n" + "".join("-" + line + "\n" for line in OPS.splitlines()))
    rename = ("diff --git a/ops.py b/pkg/ops.py\nsimilarity index 90%\nrename from ops.py\n"
              "rename to pkg/ops.py\n--- a/ops.py\n+++ b/pkg/ops.py\n@@ -1,2 +1,2 @@\n"
              " def add(a, b):\n-    return a + b\n+    return b + a\n")
    plain = "--- ops.py\n+++ ops.py\n@@ -2 +2 @@\n-    return a + b\n+    return a + b + 0\n"
    report = run("udiff", [create, delete, rename, plain], repo, registry)
    assert [o.status for o in report.outcomes] == ["valid"] * 4
    assert files(report.outcomes[0]) == {"pkg/new.py": "A = 1\nB = 2\n"}
    assert files(report.outcomes[1]) == {"ops.py": None}
    assert files(report.outcomes[2]) == {"ops.py": None, "pkg/ops.py": OPS.replace("a + b", "b + a")}
    assert "+    return a + b + 0" in report.outcomes[3].diff


def test_a_delete_whose_removed_lines_are_not_the_file_is_no_match(repo, registry):
    delete = "--- a/ops.py\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-def add(a, b):\n-    return a + b\n"
    assert reason(run("udiff", [delete], repo, registry).outcomes[0]) == "no_match"


def test_udiff_honours_no_newline_markers_and_crlf_files(repo, registry):
    notes = ("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n"
             "\\ No newline at end of file\n+gamma\n\\ No newline at end of file\n")
    crlf = "--- a/pkg/crlf.py\n+++ b/pkg/crlf.py\n@@ -2 +2 @@\n-y = 2\n+y = 20\n"
    report = run("udiff", [notes, crlf], repo, registry)
    assert files(report.outcomes[0]) == {"notes.txt": "alpha\ngamma"}
    assert files(report.outcomes[1]) == {"pkg/crlf.py": "x = 1\r\ny = 20\r\nz = 3\r\n"}


def test_a_blank_context_line_without_its_space_is_read_as_context(repo, registry):
    patch = "--- a/ops.py\n+++ b/ops.py\n@@ -2,4 +2,4 @@\n     return a + b\n\n\n-def sub(a, b):\n+def minus(a, b):\n"
    out = run("udiff", [patch], repo, registry).outcomes[0]
    assert files(out) == {"ops.py": OPS.replace("def sub", "def minus")}


@pytest.mark.parametrize("patch, line, words", [
    ("hello\n", 1, "no file header"),
    ("--- a/ops.py\n+++ b/ops.py\n@@ -1 +1 @@\n-x\n+y\njunk\n", 6, "expected a hunk header"),
    ("--- a/ops.py\n+++ b/ops.py\n@@ nonsense\n-x\n", 3, "malformed hunk header"),
    ("--- a/ops.py\n+++ b/ops.py\n@@ -1 +1 @@\n", 3, "the hunk has no lines"),
    ("diff --git a/x b/x\nGIT binary patch\n", 2, "binary patches"),
    ("--- a/ops.py\n+++ b/ops.py\n", 1, "has no hunks"),
])
def test_a_malformed_udiff_is_a_malformed_patch_rejection_naming_the_line(repo, registry, patch, line, words):
    with pytest.raises(MalformedPatch) as exc:
        udiff.parse(patch)
    assert exc.value.line == line and words in exc.value.message
    out = run("udiff", [patch], repo, registry).outcomes[0]
    assert out.rejection.reason == "malformed_patch" and f"line {line}: " in out.rejection.detail


def test_git_quoted_paths_are_unquoted():
    patch = 'diff --git "a/t\\303\\251st.py" "b/t\\303\\251st.py"\n--- "a/t\\303\\251st.py"\n+++ "b/t\\303\\251st.py"\n@@ -1 +1 @@\n-a\n+b\n'
    (edit,) = udiff.parse(patch)
    assert edit.file == "tést.py"


# ---- apply_patch (V4A)


def test_v4a_anchors_narrow_the_search_where_the_bare_chunk_is_ambiguous(repo, registry):
    bare = "*** Begin Patch\n*** Update File: twice.py\n@@\n-    return 1\n+    return 2\n*** End Patch"
    anchored = "*** Begin Patch\n*** Update File: twice.py\n@@ def g():\n-    return 1\n+    return 2\n*** End Patch"
    report = run("apply_patch", [bare, anchored], repo, registry)
    assert reason(report.outcomes[0]) == "ambiguous_match"  # Codex would take the first
    assert files(report.outcomes[1]) == {"twice.py": TWICE[:-2] + "2\n"}


def test_v4a_adds_deletes_updates_and_moves_files(repo, registry):
    patch = ("*** Begin Patch\n*** Add File: pkg/a.py\n+A = 1\n*** Delete File: notes.txt\n"
             "*** Update File: ops.py\n*** Move to: pkg/ops.py\n@@ def sub(a, b):\n-    return a - b\n"
             "+    return b - a\n*** End of File\n*** End Patch\n")
    out = run("apply_patch", [patch], repo, registry).outcomes[0]
    assert files(out) == {"pkg/a.py": "A = 1\n", "notes.txt": None, "ops.py": None,
                          "pkg/ops.py": OPS.replace("a - b", "b - a")}


def test_v4a_end_of_file_requires_the_chunk_to_end_the_file(repo, registry):
    patch = "*** Begin Patch\n*** Update File: ops.py\n@@\n-    return a + b\n+    return 0\n*** End of File\n*** End Patch"
    assert reason(run("apply_patch", [patch], repo, registry).outcomes[0]) == "no_match"


def test_v4a_keeps_a_missing_final_newline(repo, registry):
    patch = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-beta\n+gamma\n*** End Patch"
    drop = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-beta\n*** End Patch"
    report = run("apply_patch", [patch, drop], repo, registry)
    assert files(report.outcomes[0]) == {"notes.txt": "alpha\ngamma"}
    assert files(report.outcomes[1]) == {"notes.txt": "alpha"}


@pytest.mark.parametrize("patch, line", [
    ("*** Update File: ops.py\n", 1),
    ("*** Begin Patch\n*** Update File: ops.py\n-x\n", 3),
    ("*** Begin Patch\n*** Frobnicate: x\n*** End Patch", 2),
    ("*** Begin Patch\n*** Add File: x.py\nno plus\n*** End Patch", 3),
    ("*** Begin Patch\n*** Update File: ops.py\n@@\n?bad\n*** End Patch", 4),
    ("*** Begin Patch\n*** Update File: ops.py\n*** End Patch", 3),
])
def test_a_malformed_v4a_patch_names_its_line(repo, registry, patch, line):
    with pytest.raises(MalformedPatch) as exc:
        v4a.parse(patch)
    assert exc.value.line == line
    out = run("apply_patch", [patch], repo, registry).outcomes[0]
    assert out.rejection.reason == "malformed_patch" and f"line {line}:" in out.rejection.detail


# ---- editor


def test_editor_commands_use_the_tools_own_fields(repo, registry):
    report = run("editor", [
        [{"command": "str_replace", "path": "ops.py", "old_str": "a - b", "new_str": "b - a"}],
        [{"command": "str_replace", "path": "twice.py", "old_str": "return 1", "new_str": "return 2"}],
        [{"command": "insert", "path": "ops.py", "insert_line": 0, "new_str": "import math\n\nmath.pi"}],
        [{"command": "insert", "path": "notes.txt", "insert_line": 2, "new_str": "gamma"}],
        [{"command": "insert", "path": "ops.py", "insert_line": 7, "new_str": "x"}],
        [{"command": "create", "path": "ops.py", "file_text": "x = 1\n"}],
        [{"command": "create", "path": "pkg/made.py", "file_text": "x = 1\n"}],
        [{"command": "view", "path": "ops.py"}],
        [{"command": "insert", "path": "ops.py", "new_str": "x"}],
    ], repo, registry)
    assert [reason(o) for o in report.outcomes] == [
        "valid", "ambiguous_match", "valid", "valid", "line_out_of_range", "file_exists", "valid",
        "malformed_patch", "malformed_patch"]
    assert files(report.outcomes[2]) == {"ops.py": "import math\n\nmath.pi\n" + OPS}
    assert files(report.outcomes[3]) == {"notes.txt": "alpha\nbeta\ngamma"}
    assert "command 1: insert needs insert_line" in report.outcomes[8].rejection.detail


def test_an_editor_insert_outside_the_target_span_is_outside_span(repo, registry):
    target = {"file": "ops.py", "span": [5, 6]}
    report = run("editor", [
        [{"command": "insert", "path": "ops.py", "insert_line": 1, "new_str": "    # one"}],
        [{"command": "insert", "path": "ops.py", "insert_line": 4, "new_str": "# before sub"}],
    ], repo, registry, target)
    assert [reason(o) for o in report.outcomes] == ["outside_span", "valid"]
    assert files(report.outcomes[1]) == {"ops.py": OPS.replace("\n\n\ndef sub", "\n\n\n# before sub\ndef sub")}


# ---- file operations as first-class edits


def test_renames_and_deletes_are_checked_like_every_edit(repo, registry, tmp_path):
    (tmp_path / "outside.py").write_text("x = 1\n")
    report = run_batch(parse({"version": 1, "candidates": [
        {"id": "escape", "edits": [{"file": "ops.py", "move_to": "../outside2.py"}]},
        {"id": "onto", "edits": [{"file": "ops.py", "move_to": "twice.py"}]},
        {"id": "both", "edits": [{"file": "ops.py", "move_to": "new.py"},
                                 {"file": "new.py", "content": "x = 1\n"}]},
        {"id": "del-edit", "edits": [{"file": "ops.py", "delete": True},
                                     {"file": "ops.py", "search": "a - b", "replace": "b"}]},
        {"id": "missing", "edits": [{"file": "gone.py", "delete": True}]},
        {"id": "twice", "edits": [{"file": "ops.py", "move_to": "a.py"}, {"file": "ops.py", "move_to": "b.py"}]},
        {"id": "ok", "edits": [{"file": "ops.py", "search": "a - b", "replace": "b - a"},
                               {"file": "ops.py", "move_to": "pkg/moved.py"}]},
    ]}), repo, registry)
    assert [reason(o) for o in report.outcomes] == [
        "path_outside_repo", "file_exists", "overlapping_edits", "overlapping_edits", "file_missing",
        "overlapping_edits", "valid"]
    assert files(report.by_id("ok")) == {"ops.py": None, "pkg/moved.py": OPS.replace("a - b", "b - a")}


def test_a_rename_and_a_delete_are_written_atomically_and_git_applies_the_report_diff(repo, registry):
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"],
                   check=True)
    patch = ("*** Begin Patch\n*** Update File: ops.py\n*** Move to: pkg/ops.py\n@@ def add(a, b):\n"
             "-    return a + b\n+    return b + a\n*** Delete File: notes.txt\n*** End Patch")
    out = run("apply_patch", [patch], repo, registry).outcomes[0]
    check = subprocess.run(["git", "-C", str(repo), "apply", "--check", "-"], input=out.diff, text=True,
                           capture_output=True)
    assert check.returncode == 0, check.stderr
    write_files(repo, out.applied.files)
    assert not (repo / "ops.py").exists() and not (repo / "notes.txt").exists()
    assert (repo / "pkg/ops.py").read_text() == OPS.replace("a + b", "b + a")
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True)
    assert sorted(status.stdout.split("\n")[:-1]) == [" D notes.txt", " D ops.py", "?? pkg/ops.py"]


# ---- the batch and its schema


def test_payloads_must_match_the_batch_format(repo):
    with pytest.raises(BadInput, match="patch needs a batch format of udiff or apply_patch"):
        parse({"version": 1, "candidates": [{"id": "a", "patch": "x"}]})
    with pytest.raises(BadInput, match=r'a udiff candidate is \{"id", "patch"\} \(has edits\)'):
        parse({"version": 1, "format": "udiff", "candidates": [{"patch": "x", "edits": [{"file": "a", "content": ""}]}]})
    with pytest.raises(BadInput, match="no commands"):
        parse({"version": 1, "format": "editor", "candidates": [{"id": "a"}]})


def test_the_printed_schema_names_every_format(tmp_path):
    printed = json.loads(run_gen09("schema").stdout)
    assert printed == SCHEMA
    assert set(printed["properties"]["format"]["enum"]) == {
        "search_replace", "whole_file", "udiff", "apply_patch", "editor"}


def test_the_cli_does_not_import_a_format_parser_until_a_batch_uses_one(repo):
    code = ("import sys, gen09_core.cli, gen09_core.candidates as c; "
            "assert not [m for m in sys.modules if m.startswith(('gen09_core.formats', 'mcp'))]; "
            "c.parse({'version': 1, 'format': 'udiff', 'candidates': [{'patch': '--- a/x\\n+++ b/x\\n@@ @@\\n-a\\n+b\\n'}]}); "
            "print(sorted(m for m in sys.modules if m.startswith('gen09_core.formats')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['gen09_core.formats', 'gen09_core.formats.udiff']"
