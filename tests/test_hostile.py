"""No traceback, ever: hostile inputs are exit 2 with one line, a broken environment or
tool is exit 3 with one line (real processes, real files, real fake tools)."""

import ctypes
import json
import os
import subprocess
import sys

import pytest

from tests.helpers import EXAMPLES, run_gen09, tree_bytes

CANDIDATES = EXAMPLES / "candidates.json"
FIX = {"edits": [{"file": "calc/ops.py", "search": "return a - b", "replace": "return a + b"}]}


def one_line(result, code):
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().split("\n")) == 1, result.stderr
    return result.stderr


def apply(tmp_path, repo, data, *extra, **kwargs):
    path = tmp_path / "c.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return run_gen09("apply", path, "--repo", repo, *extra, **kwargs)


SURROGATE = "\\ud800"
SURROGATES = {
    "search": '{"version": 1, "candidates": [{"edits": [{"file": "calc/ops.py", "search": "a%s", "replace": "b"}]}]}',
    "replace": '{"version": 1, "candidates": [{"edits": [{"file": "calc/ops.py", "search": "a - b", "replace": "%s"}]}]}',
    "content": '{"version": 1, "candidates": [{"edits": [{"file": "calc/n.py", "content": "x%s"}]}]}',
    "file": '{"version": 1, "candidates": [{"edits": [{"file": "calc/%s.py", "content": "x"}]}]}',
    "id": '{"version": 1, "candidates": [{"id": "%s", "edits": [{"file": "calc/n.py", "content": "x"}]}]}',
    "key": '{"version": 1, "candidates": [{"%s": 1}]}',
}


@pytest.mark.parametrize("where", SURROGATES)
def test_a_lone_surrogate_in_any_string_is_bad_input(calc_repo, tmp_path, where):
    assert "lone surrogate" in one_line(apply(tmp_path, calc_repo, SURROGATES[where] % SURROGATE), 2)


def test_a_surrogate_pair_is_a_character_not_an_error(calc_repo, tmp_path):
    data = SURROGATES["replace"] % "return a + b  # \\ud83d\\ude00"
    assert apply(tmp_path, calc_repo, data.replace('"a - b"', '"return a - b"')).returncode == 0


@pytest.mark.parametrize("path, expected", [
    ("calc/a\u0000b.py", "control character"),
    ("calc/" + "x" * 300 + ".py", "too long"),
])
def test_impossible_paths_are_bad_input(calc_repo, tmp_path, path, expected):
    data = {"version": 1, "candidates": [{"edits": [{"file": path, "content": "x = 1\n"}]}]}
    assert expected in one_line(apply(tmp_path, calc_repo, data), 2)


def test_a_symlink_loop_in_a_path_is_bad_input(calc_repo, tmp_path):
    os.symlink("loop", calc_repo / "loop")
    data = {"version": 1, "candidates": [{"edits": [{"file": "loop/x.py", "content": "x = 1\n"}]}]}
    assert "Symlink loop" in one_line(apply(tmp_path, calc_repo, data), 2)


def _without_dac_override():
    """A preexec hook under which even root obeys file permissions (drops CAP_DAC_OVERRIDE
    and CAP_DAC_READ_SEARCH from the bounding set before exec); None for other users."""
    if os.geteuid() != 0:
        return None
    libc = ctypes.CDLL(None, use_errno=True)

    def preexec():
        for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                os._exit(77)

    return preexec


def run_unprivileged(*args):
    result = subprocess.run([sys.executable, "-m", "gen09_core", *map(str, args)], capture_output=True,
                            text=True, preexec_fn=_without_dac_override())
    if result.returncode == 77:
        pytest.skip("cannot drop CAP_DAC_OVERRIDE here")
    return result


def test_unreadable_candidates_file_is_bad_input_and_unreadable_repository_is_exit_3(calc_repo, tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"version": 1, "candidates": [FIX]}))
    path.chmod(0)
    assert "Permission denied" in one_line(run_unprivileged("apply", path, "--repo", calc_repo), 2)
    path.chmod(0o644)
    (calc_repo / "calc/ops.py").chmod(0)
    assert "cannot read calc/ops.py" in one_line(run_unprivileged("apply", path, "--repo", calc_repo), 3)
    (calc_repo / "calc/ops.py").chmod(0o644)
    (calc_repo / "calc").chmod(0)
    try:
        assert "Permission denied" in one_line(run_unprivileged("apply", path, "--repo", calc_repo), 3)
    finally:
        (calc_repo / "calc").chmod(0o755)


def test_a_float_span_is_the_integer_span(calc_repo, tmp_path):
    def report(span):
        data = {"version": 1, "target": {"file": "calc/ops.py", "span": span},
                "candidates": [{"search": "return a - b", "replace": "return a + b"}]}
        result = apply(tmp_path, calc_repo, data, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)["candidates"]

    assert report([5.0, 8.0]) == report([5, 8])
    assert "must be integer" in one_line(apply(tmp_path, calc_repo, {
        "version": 1, "target": {"file": "calc/ops.py", "span": [5.5, 8]},
        "candidates": [{"search": "a", "replace": "b"}]}), 2)


def test_pathologically_nested_json_is_bad_input(calc_repo, tmp_path):
    data = '{"version": 1, "candidates": ' + "[" * 100_000 + "]" * 100_000 + "}"
    assert "nested too deeply" in one_line(apply(tmp_path, calc_repo, data), 2)


def test_closed_stdin_is_bad_input(calc_repo):
    result = subprocess.run([sys.executable, "-m", "gen09_core", "apply", "-", "--repo", str(calc_repo)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL,
                            preexec_fn=lambda: os.close(0))
    assert "stdin is closed" in one_line(result, 2)


@pytest.mark.parametrize("source", ["-", "/dev/stdin", "process substitution"])
def test_stdin_by_every_name(calc_repo, source):
    gen09 = f"{sys.executable} -m gen09_core apply"
    if source == "process substitution":
        command = f"{gen09} <(cat {CANDIDATES}) --repo {calc_repo} --json"
    else:
        command = f"cat {CANDIDATES} | {gen09} {source} --repo {calc_repo} --json"
    result = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["summary"]["valid"] == 2


def test_stdout_on_a_full_device_is_exit_3_and_nothing_is_written(calc_repo):
    before = tree_bytes(calc_repo)
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", "gen09_core", "apply", str(CANDIDATES),
                                 "--repo", str(calc_repo), "--write", "fix"], stdout=full,
                                stderr=subprocess.PIPE, text=True)
    assert "No space left on device (writing the output)" in one_line(result, 3)
    assert tree_bytes(calc_repo) == before


@pytest.mark.parametrize("codes, expected", [("XYZ9", "Unknown rule selector `XYZ9`"),
                                             ("F821,f401", "'f401' is not a lint code")])
def test_an_unknown_hard_lint_code_is_bad_input(calc_repo, codes, expected):
    result = run_gen09("apply", CANDIDATES, "--repo", calc_repo, "--hard-lint", codes)
    assert expected in one_line(result, 2)


def fake_ruff(tmp_path, body):
    script = tmp_path / "ruff"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return script


RUFFS = {
    "missing": (None, "could not run ruff"),
    "not json": ("echo 'this is not json'", "ruff printed output gen09 cannot read"),
    "unexpected file": ('echo \'[{"code": "F821", "filename": "/etc/passwd", "message": "m", '
                        '"location": {"row": 1}}]\'', "ruff reported a file it was not given: /etc/passwd"),
    "crashing": ("echo 'boom' >&2; echo 'more' >&2; exit 101", "ruff failed (exit 101): boom more"),
    "hanging": ("exec sleep 600", "ruff (") ,
}


@pytest.mark.parametrize("kind", RUFFS)
def test_a_broken_ruff_is_exit_3_with_one_line(calc_repo, tmp_path, monkeypatch, kind):
    body, expected = RUFFS[kind]
    monkeypatch.setenv("GEN09_RUFF", str(tmp_path / "none") if body is None else str(fake_ruff(tmp_path, body)))
    monkeypatch.setenv("GEN09_LINT_TIMEOUT", "1")
    stderr = one_line(run_gen09("apply", CANDIDATES, "--repo", calc_repo), 3)
    assert expected in stderr
    if kind == "hanging":
        assert "did not finish in 1 s" in stderr


RECORDED = json.loads((EXAMPLES / "cassette.jsonl").read_text())  # replays the example run
CASSETTES = {
    "not json": "{not json\n",
    "not utf-8": b"\xff\xfe\n",
    "not an object": "[1, 2]\n",
    "missing latency": json.dumps({k: v for k, v in RECORDED.items() if k != "latency_ms"}),
    "response not an object": json.dumps({**RECORDED, "response": "text"}),
    "no response and no error": json.dumps({**RECORDED, "response": None}),
    "request not an object": json.dumps({**RECORDED, "request": []}),
    "negative attempts": json.dumps({**RECORDED, "attempts": -1}),
    "deeply nested": '{"a": ' * 100_000 + "1" + "}" * 100_000,
}


def test_the_recorded_example_replays(calc_repo, tmp_path):
    cassette = tmp_path / "c.jsonl"
    cassette.write_text(json.dumps(RECORDED) + "\n")
    result = run_gen09("run", EXAMPLES / "upstream.json", "--repo", calc_repo, "--replay", cassette)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("kind", CASSETTES)
def test_a_malformed_replay_cassette_is_bad_input(calc_repo, tmp_path, kind):
    cassette = tmp_path / "c.jsonl"
    data = CASSETTES[kind]
    cassette.write_bytes(data if isinstance(data, bytes) else data.encode())
    result = run_gen09("run", EXAMPLES / "upstream.json", "--repo", calc_repo, "--replay", cassette)
    assert f"cassette {cassette}" in one_line(result, 2)


def test_a_cassette_line_may_hold_line_separators(calc_repo, tmp_path):
    """JSONL lines are split on \\n only: U+2028 inside a recorded string is not a break."""
    from gen09_core.llm import Cassette

    cassette = Cassette(tmp_path / "c.jsonl")
    cassette.append({**RECORDED, "response": {"text": "a\u2028b\u0085c"}})
    assert Cassette(cassette.path).entries()[0]["response"] == {"text": "a\u2028b\u0085c"}
