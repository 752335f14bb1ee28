import hashlib
import json
import os
import subprocess
import sys

import jsonschema
import pytest

from tests.helpers import EXAMPLES, run_gen09, tree_bytes

CANDIDATES = EXAMPLES / "candidates.json"


def apply_json(repo, candidates=CANDIDATES, *extra):
    result = run_gen09("apply", candidates, "--repo", repo, "--json", *extra)
    return result, json.loads(result.stdout) if result.stdout else None


def test_example_shows_every_outcome_and_leaves_the_repo_untouched(calc_repo):
    before = tree_bytes(calc_repo)
    result, report = apply_json(calc_repo)
    assert result.returncode == 0, result.stderr
    got = {c["id"]: (c["status"], c.get("reason")) for c in report["candidates"]}
    assert got == {
        "fix": ("valid", None),
        "fix-commented": ("duplicate", None),
        "fix-swapped": ("valid", None),
        "ambiguous": ("rejected", "ambiguous_match"),
        "no-match": ("rejected", "no_match"),
        "outside-span": ("rejected", "outside_span"),
        "syntax-error": ("rejected", "parse_error"),
        "undefined-name": ("rejected", "lint_error"),
        "unused-import": ("rejected", "lint_error"),
    }
    fix = report["candidates"][0]
    assert fix["diff"].startswith("diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n")
    assert "+    return a + b\n" in fix["diff"] and fix["digest"].startswith("sha256:")
    assert report["candidates"][1]["duplicate_of"] == "fix"
    assert report["summary"] == {"total": 9, "valid": 2, "duplicate": 1, "rejected": 6,
                                 "edit_success_rate": round(5 / 9, 4)}
    assert report["representation"]["format"] == "search_replace"
    assert tree_bytes(calc_repo) == before


def test_human_table(calc_repo):
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo)
    assert result.returncode == 0
    assert "ambiguous_match" in result.stdout and "2 valid, 1 duplicate, 6 rejected" in result.stdout


def test_write_lands_exactly_the_valid_candidate(calc_repo):
    before = tree_bytes(calc_repo)
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo, "--write", "fix")
    assert result.returncode == 0, result.stderr
    after = tree_bytes(calc_repo)
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {"calc/ops.py"}
    assert after["calc/ops.py"] == before["calc/ops.py"].replace(
        b"    return a - b  # bug: should add\n", b"    return a + b\n")
    assert not list(calc_repo.rglob("*.gen09"))


@pytest.mark.parametrize("cid", ["syntax-error", "fix-commented"])
def test_write_of_a_rejected_or_duplicate_candidate_writes_nothing(calc_repo, cid):
    before = tree_bytes(calc_repo)
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo, "--write", cid)
    assert result.returncode == 1 and "not written" in result.stderr
    assert tree_bytes(calc_repo) == before


def test_write_rolls_back_when_a_file_changed_since_the_snapshot(calc_repo, registry):
    from gen09_core.apply import apply_candidate
    from gen09_core.errors import EnvironmentFailure
    from gen09_core.models import Candidate, Edit
    from gen09_core.repo import Snapshot
    from gen09_core.write import write_files

    snap = Snapshot(calc_repo)
    applied = apply_candidate(registry, snap, Candidate("c", (
        Edit("calc/ops.py", "return a - b", "return a + b"),
        Edit("calc/shapes.py", '"""Area helpers."""', '"""Areas."""'))), None)
    (calc_repo / "calc/shapes.py").write_text("changed by someone else\n")
    before = tree_bytes(calc_repo)
    with pytest.raises(EnvironmentFailure, match="calc/shapes.py changed on disk"):
        write_files(calc_repo, applied.files)
    assert tree_bytes(calc_repo) == before


def test_no_valid_candidate_exits_1(calc_repo, tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"version": 1, "target": {"file": "calc/ops.py"},
                                "candidates": [{"search": "nothing like this", "replace": "x"}]}))
    result, report = apply_json(calc_repo, path)
    assert result.returncode == 1 and report["summary"]["valid"] == 0


BAD_INPUTS = {
    "malformed": ('{"version": 1,\n "candidates": [}', "line 2, column 17"),
    "unknown key": ({"version": 1, "candidates": [{"serach": "a", "replace": "b"}]}, "serach"),
    "unknown top key": ({"version": 1, "candidates": [{"search": "a", "replace": "b"}], "extra": 1}, "extra"),
    "empty list": ({"version": 1, "candidates": []}, "candidates"),
    "wrong version": ({"version": 2, "candidates": [{"search": "a", "replace": "b"}]}, "version"),
    "bare without target": ({"version": 1, "candidates": [{"search": "a", "replace": "b"}]}, "target.file"),
    "half an edit": ({"version": 1, "candidates": [{"edits": [{"file": "a.py", "search": "x"}]}]}, "search + replace"),
    "duplicate ids": ({"version": 1, "candidates": [
        {"id": "a", "edits": [{"file": "calc/ops.py", "content": ""}]},
        {"id": "a", "edits": [{"file": "calc/ops.py", "content": ""}]}]}, "twice"),
    "span past end": ({"version": 1, "target": {"file": "calc/ops.py", "span": [30, 99]},
                       "candidates": [{"search": "a", "replace": "b"}]}, "past the end"),
    "span reversed": ({"version": 1, "target": {"file": "calc/ops.py", "span": [9, 3]},
                       "candidates": [{"search": "a", "replace": "b"}]}, "ends before"),
    "missing target file": ({"version": 1, "target": {"file": "calc/nope.py"},
                             "candidates": [{"search": "a", "replace": "b"}]}, "does not exist"),
    "entity elsewhere": ({"version": 1, "target": {"file": "calc/ops.py", "span": [6, 8], "entity": "calc.ops.mean"},
                          "candidates": [{"search": "a", "replace": "b"}]}, "not inside"),
    "unknown entity": ({"version": 1, "target": {"file": "calc/ops.py", "entity": "calc.ops.nope"},
                        "candidates": [{"search": "a", "replace": "b"}]}, "not defined"),
    "target outside repo": ({"version": 1, "target": {"file": "../x.py"},
                             "candidates": [{"search": "a", "replace": "b"}]}, "not a repo-relative path"),
    "not utf-8": (b"\xff\xfe{", "not UTF-8"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_input_is_one_clear_message_and_exit_2(calc_repo, tmp_path, name):
    content, expected = BAD_INPUTS[name]
    path = tmp_path / "c.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    before = tree_bytes(calc_repo)
    result = run_gen09("apply", path, "--repo", calc_repo)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert expected in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert tree_bytes(calc_repo) == before


def test_missing_candidates_file_and_repo(calc_repo, tmp_path):
    assert run_gen09("apply", tmp_path / "none.json", "--repo", calc_repo).returncode == 2
    result = run_gen09("apply", CANDIDATES, "--repo", tmp_path / "no-repo")
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_unknown_write_id_is_usage_error(calc_repo):
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo, "--write", "nope")
    assert result.returncode == 2 and "no candidate has that id" in result.stderr


def test_huge_input_is_refused(calc_repo, tmp_path, monkeypatch):
    path = tmp_path / "big.json"
    with path.open("wb") as handle:
        handle.truncate(33 * 1024 * 1024)
    result = run_gen09("apply", path, "--repo", calc_repo)
    assert result.returncode == 2 and "larger than" in result.stderr


def test_candidates_from_stdin(calc_repo):
    result = run_gen09("apply", "-", "--repo", calc_repo, "--json", stdin=CANDIDATES.read_text())
    assert result.returncode == 0 and json.loads(result.stdout)["summary"]["valid"] == 2


def test_schema_is_valid_json_schema_and_accepts_the_example():
    result = run_gen09("schema")
    schema = json.loads(result.stdout)
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.validate(json.loads(CANDIDATES.read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"version": 1, "candidates": [{"serach": ""}]}, schema)


def test_help_explains():
    result = run_gen09("apply", "--help")
    assert result.returncode == 0 and "--write" in result.stdout and "Exit status" in result.stdout


def _write_new_file(calc_repo, tmp_path, umask):
    path = tmp_path / "new.json"
    path.write_text(json.dumps({"version": 1, "candidates": [
        {"id": "n", "edits": [{"file": "calc/extra/new.py", "content": "X = 1\n"}]}]}))
    return subprocess.run([sys.executable, "-m", "gen09_core", "apply", str(path), "--repo", str(calc_repo),
                           "--write", "n"], capture_output=True, text=True, preexec_fn=lambda: os.umask(umask))


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_written_new_file_gets_0666_minus_the_umask(calc_repo, tmp_path, umask, mode):
    assert _write_new_file(calc_repo, tmp_path, umask).returncode == 0
    assert (calc_repo / "calc/extra/new.py").stat().st_mode & 0o777 == mode


def test_a_read_only_target_is_exit_3_unless_forced(calc_repo):
    (calc_repo / "calc/ops.py").chmod(0o444)
    before = tree_bytes(calc_repo)
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo, "--write", "fix")
    assert result.returncode == 3 and "calc/ops.py is read-only (mode 444)" in result.stderr
    assert tree_bytes(calc_repo) == before
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo, "--write", "fix", "--force")
    assert result.returncode == 0, result.stderr
    assert b"return a + b\n" in (calc_repo / "calc/ops.py").read_bytes()
    assert (calc_repo / "calc/ops.py").stat().st_mode & 0o777 == 0o444


def test_a_write_leaves_no_journal_and_a_kill_leaves_one_the_next_command_rolls_back(calc_repo):
    """The journal that a SIGKILLed write leaves is found and rolled back by the next command."""
    from gen09_core.journal import begin, journal_dir

    assert run_gen09("apply", CANDIDATES, "--repo", calc_repo, "--write", "fix").returncode == 0
    assert not journal_dir(calc_repo.resolve()).exists() and not (calc_repo / ".gen09").exists()
    before = (calc_repo / "calc/ops.py").read_bytes()
    folder = journal_dir(calc_repo.resolve())  # as a write killed just after its first rename
    begin(calc_repo, folder, [{"path": "calc/ops.py", "tmp": "calc/.ops.py.x.gen09", "mode": 0o644,
                               "new_sha256": hashlib.sha256(b"half written\n").hexdigest()}], [before], [])
    (calc_repo / "calc/.ops.py.x.gen09").write_bytes(b"half written\n")
    os.replace(calc_repo / "calc/.ops.py.x.gen09", calc_repo / "calc/ops.py")
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo)
    assert result.stderr.startswith("gen09: completed the rollback of an interrupted --write")
    assert "calc/ops.py: restored" in result.stderr
    assert (calc_repo / "calc/ops.py").read_bytes() == before and not folder.exists()


def test_an_error_is_one_line_and_debug_shows_the_traceback_behind_it(tmp_path):
    missing = tmp_path / "missing.json"
    plain = run_gen09("apply", missing)
    assert plain.returncode == 2 and len(plain.stderr.strip().splitlines()) == 1, plain.stderr
    debug = run_gen09("--debug", "apply", missing)
    assert debug.returncode == 2 and "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1] == plain.stderr.strip()
    assert "--debug" not in run_gen09("--help").stdout


def test_mutate_n_is_a_deprecated_alias_of_max_mutants():
    repo = EXAMPLES / "calc"
    new = run_gen09("mutate", repo, "--dry-run", "--json", "--max-mutants", "2")
    old = run_gen09("mutate", repo, "--dry-run", "--json", "--n", "2")
    assert new.returncode == old.returncode == 0, old.stderr
    assert old.stdout == new.stdout and len(json.loads(new.stdout)) == 2
    assert "deprecated" not in new.stderr
    assert "gen09: warning: mutate --n is deprecated; use --max-mutants" in old.stderr
    both = run_gen09("mutate", repo, "--dry-run", "--n", "2", "--max-mutants", "3")
    assert both.returncode == 2 and "--max-mutants" in both.stderr.splitlines()[-1]


def test_mutate_summary_says_how_the_mutant_runs_ran():
    """The printed summary counts warm and fresh runs and lists why runs were handed back,
    the most frequent reason first, at most five."""
    from gen09_core.cli.mutate import _runs_line

    assert _runs_line({"fresh": 30}) == "Mutant runs: 30 fresh."
    line = _runs_line({"prefork: a class changed": 1, "warm": 29, "prefork: ran at import": 2})
    assert line == "Mutant runs: 29 warm, 3 handed back (2x prefork: ran at import; 1x prefork: a class changed)."
    many = _runs_line({f"fresh: reason {i}": i for i in range(1, 8)})
    assert many.startswith("Mutant runs: 28 handed back (7x fresh: reason 7;")
    assert many.endswith("; 2 more reasons in summary.json).")


def test_mutate_summary_says_when_no_mutant_made_a_test_fail(tmp_path, capsys):
    """yargs-parser 22: its tests import build/, compiled once at install; all 12 mutants of lib/*.ts were
    'no F2P' and the run said only that no task was exported."""
    from gen09_core.cli.mutate import _print_summary

    row = {"generated": 12, "gate_dropped": 0, "duplicate": 0, "gated": 12, "no_fail_to_pass": 12, "exported": 0}
    summary = {"totals": row, "per_modifier": {"op_swap": row}, "mutants": 12, "timeout_sec": 12.3,
               "timeout_source": "derived", "exported": 0, "cost": {"test_runner_seconds": 12.0}}
    _print_summary(summary, tmp_path)
    said = " ".join(capsys.readouterr().out.split())
    assert "Not one of the 12 validated mutants made a test fail" in said and "build step" in said
    _print_summary({**summary, "totals": {**row, "no_fail_to_pass": 11, "exported": 1}}, tmp_path)
    assert "Not one of" not in capsys.readouterr().out


def test_an_interrupt_reported_with_its_signal_blocked_still_ends_the_process_by_that_signal():
    script = (
        "import signal, click\n"
        "from gen09_core.cli.group import Gen09Group\n"
        "from gen09_core.errors import Interrupted\n"
        "@click.group(cls=Gen09Group)\n"
        "def main(): pass\n"
        "@main.command()\n"
        "def go():\n"
        "    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])\n"
        "    raise Interrupted(signal.SIGTERM, 'the write was rolled back: 2 files')\n"
        "main(['go'])\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == -15, result.stderr
    assert result.stderr == "gen09: interrupted by SIGTERM: the write was rolled back: 2 files\n"
