import os
import subprocess

from gen09_core.apply import apply_candidate
from gen09_core.gate import gate
from gen09_core.models import Candidate, Edit
from gen09_core.repo import Snapshot


def gated(registry, repo, *candidates, hard_lint=("F821", "F401")):
    snapshot = Snapshot(repo)
    applied = [apply_candidate(registry, snapshot, Candidate(f"c{i}", (e,)), None)
               for i, e in enumerate(candidates)]
    return [r.rejection for r in gate(registry, applied, hard_lint)]


def test_parse_error_is_rejected_with_its_line(registry, calc_repo):
    [rej] = gated(registry, calc_repo, Edit("calc/ops.py", "return a - b", "return (a - b"))
    assert (rej.stage, rej.reason) == ("gate", "parse_error")
    assert "line 8" in rej.detail


def test_compile_level_error_rejects(registry, calc_repo):
    [rej] = gated(registry, calc_repo, Edit("calc/ops.py", "import math\n", "import math\nreturn 1\n"))
    assert rej.reason == "parse_error" and "outside function" in rej.detail


def test_introduced_undefined_name_and_unused_import_reject(registry, calc_repo):
    undefined, unused = gated(
        registry, calc_repo,
        Edit("calc/ops.py", "return a - b", "return a + c"),
        Edit("calc/ops.py", "import math\n", "import math\nimport os\n"),
    )
    assert undefined.reason == "lint_error" and "F821" in undefined.detail and "`c`" in undefined.detail
    assert unused.reason == "lint_error" and "F401" in unused.detail


def test_a_preexisting_finding_does_not_reject(registry, tmp_path):
    (tmp_path / "m.py").write_text("import os\n\n\ndef f():\n    return 1\n")
    [rej] = gated(registry, tmp_path, Edit("m.py", "return 1", "return 2"))
    assert rej is None


def test_warnings_outside_the_hard_set_never_reject(registry, calc_repo):
    long_line = "    return a + b  # " + "x" * 200
    [rej] = gated(registry, calc_repo, Edit("calc/ops.py", "    return a - b  # bug: should add", long_line))
    assert rej is None


def test_hard_lint_set_is_configurable(registry, calc_repo):
    edit = Edit("calc/ops.py", "import math\n", "import math\nimport os\n")
    assert gated(registry, calc_repo, edit, hard_lint=()) == [None]
    assert gated(registry, calc_repo, edit, hard_lint=("F821",)) == [None]


def test_one_ruff_process_lints_the_whole_batch(registry, calc_repo, monkeypatch):
    calls = []
    real_run = subprocess.run

    def counting_run(cmd, *args, **kwargs):
        calls.append(cmd)
        return real_run(cmd, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting_run)
    edits = [Edit("calc/ops.py", "return a - b", f"return a + b + {i}") for i in range(8)]
    edits.append(Edit("calc/shapes.py", '"""Area helpers."""', '"""Area helpers!"""'))
    assert gated(registry, calc_repo, *edits) == [None] * 9
    assert len([c for c in calls if "ruff" in str(c[0])]) == 1


def test_findings_are_kept_by_content_and_no_lint_file_outlives_its_run(registry, calc_repo, monkeypatch):
    """A second batch on the same original sends ruff only its new texts; an original changed
    on disk is linted again; the lint folder holds no files between runs."""
    from gen09_python import lint

    monkeypatch.setattr(lint, "_CACHE", {})
    sent, real_run = [], lint._run
    monkeypatch.setattr(lint, "_run", lambda ruff, root, index, *rest: sent.append(len(index))
                        or real_run(ruff, root, index, *rest))
    edits = [Edit("calc/ops.py", "return a - b", f"return a + b + {i}") for i in range(4)]
    assert gated(registry, calc_repo, *edits[:3]) == [None] * 3
    assert gated(registry, calc_repo, edits[0], edits[3]) == [None] * 2
    ops = calc_repo / "calc/ops.py"
    ops.write_text(ops.read_text().replace("import math\n", "import os\n"))  # F401 os, F821 math
    assert gated(registry, calc_repo, Edit("calc/ops.py", "import os\n", "import os, math\n")) == [None]
    assert sent == [4, 1, 2]
    assert not [p for p in lint._folder(os.getpid()).rglob("*") if p.is_file()]


def test_files_no_pack_serves_pass_ungated(registry, calc_repo):
    (calc_repo / "notes.txt").write_text("hello\n")
    snapshot = Snapshot(calc_repo)
    applied = apply_candidate(registry, snapshot, Candidate("c", (Edit("notes.txt", "hello", "bye"),)), None)
    [result] = gate(registry, [applied])
    assert result.rejection is None and result.ungated == ("notes.txt",)


def test_suppression_comments_in_a_candidate_do_not_silence_the_hard_lint(registry, calc_repo):
    rejections = gated(
        registry, calc_repo,
        Edit("calc/ops.py", "return a - b", "return a + c  # noqa"),
        Edit("calc/ops.py", "return a - b", "return a + c  # noqa: F821"),
        Edit("calc/ops.py", "import math\n", "import math\nimport os  # noqa: F401\n"),
        Edit("calc/ops.py", "import math\n", "# ruff: noqa\nimport math\nimport os\n"),
        Edit("calc/ops.py", "import math\n", "# flake8: noqa\nimport math\nimport os\n"),
    )
    assert [r and r.reason for r in rejections] == ["lint_error"] * 5
    assert "F821" in rejections[1].detail and "F401" in rejections[3].detail


def test_a_suppressed_finding_already_in_the_original_does_not_reject(registry, tmp_path):
    (tmp_path / "m.py").write_text("import os  # noqa: F401\n\n\ndef f():\n    return 1\n")
    [rej] = gated(registry, tmp_path, Edit("m.py", "return 1", "return 2"))
    assert rej is None
