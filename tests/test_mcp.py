"""``gen09 mcp`` through the official SDK's own client: in memory against the server object,
and over stdio against the real ``gen09 mcp`` subprocess."""

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from gen09_core.candidates import SCHEMA
from gen09_core.mcp_server import build_server
from gen09_core.mcp_tools import input_schemas
from tests.helpers import EXAMPLES, run_gen09, tree_bytes

UDIFF = {"version": 1, "format": "udiff", "candidates": [
    {"id": "u1", "patch": "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ @@\n-def add(a, b):\n+def add(a, b):  # sum\n"},
    {"id": "u2", "patch": "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ @@\n-no such line\n+x\n"},
    {"id": "u3", "patch": "not a patch"},
]}


def call(server_or_params, *calls):
    """Run ``(tool, arguments)`` calls on one connection; return the results."""
    async def main():
        async with Client(server_or_params) as client:
            listed = await client.list_tools()
            return listed, [await client.call_tool(name, args) for name, args in calls]
    return anyio.run(main)


def test_tools_are_listed_with_input_schemas_built_from_the_candidates_schema(calc_repo, registry):
    listed, _ = call(build_server(calc_repo, registry))
    by_name = {t.name: t for t in listed.tools}
    assert set(by_name) == {"apply_candidates", "write_candidate", "check_file", "list_languages"}
    assert all(t.description for t in listed.tools)
    schema = by_name["apply_candidates"].input_schema
    assert schema == input_schemas()["apply_candidates"]
    for key in ("version", "format", "target", "candidates"):
        assert schema["properties"][key] == SCHEMA["properties"][key]
    assert by_name["write_candidate"].input_schema["required"] == ["version", "candidates", "id"]


@pytest.mark.parametrize("batch", [json.loads((EXAMPLES / "candidates.json").read_text()), UDIFF],
                         ids=["example", "udiff"])
def test_apply_candidates_returns_the_report_of_apply_json_and_writes_nothing(calc_repo, registry, batch, tmp_path):
    before = tree_bytes(calc_repo)
    _, (result,) = call(build_server(calc_repo, registry), ("apply_candidates", batch))
    assert not result.is_error
    (tmp_path / "c.json").write_text(json.dumps(batch))
    cli = json.loads(run_gen09("apply", tmp_path / "c.json", "--repo", calc_repo, "--json").stdout)
    cli["repo"] = str(calc_repo)
    assert result.structured_content == cli
    assert json.loads(result.content[0].text) == cli
    assert tree_bytes(calc_repo) == before


def test_write_candidate_writes_a_valid_candidate_and_refuses_others(calc_repo, registry):
    server = build_server(calc_repo, registry)
    before = (calc_repo / "calc/ops.py").read_text()
    _, (bad, missing, good) = call(server, ("write_candidate", {**UDIFF, "id": "u2"}),
                                   ("write_candidate", {**UDIFF, "id": "nope"}),
                                   ("write_candidate", {**UDIFF, "id": "u1"}))
    assert bad.is_error and "not written: u2 is rejected" in bad.content[0].text
    assert missing.is_error and "no candidate has that id" in missing.content[0].text
    assert not good.is_error and good.structured_content["written"] == {"id": "u1", "files": ["calc/ops.py"]}
    assert (calc_repo / "calc/ops.py").read_text() == before.replace("def add(a, b):", "def add(a, b):  # sum")


def test_check_file_runs_the_gate_and_list_languages_names_the_packs(calc_repo, registry):
    _, (as_is, broken, unused, langs, bad) = call(
        build_server(calc_repo, registry),
        ("check_file", {"path": "calc/ops.py"}),
        ("check_file", {"path": "calc/ops.py", "content": "def f(:\n"}),
        ("check_file", {"path": "calc/new.py", "content": "import os\n"}),
        ("list_languages", {}),
        ("check_file", {"path": "../outside.py", "content": "x = 1\n"}))
    assert as_is.structured_content == {"path": "calc/ops.py", "language": "python", "gated": True,
                                        "verdict": "pass"}
    assert broken.structured_content["reason"] == "parse_error"
    assert unused.structured_content["reason"] == "lint_error" and "F401" in unused.structured_content["detail"]
    names = {entry["name"]: entry for entry in langs.structured_content["languages"]}
    assert {"python", "go", "rust", "javascript"} <= set(names) and ".py" in names["python"]["extensions"]
    assert bad.is_error and "not a repo-relative path" in bad.content[0].text


def test_arguments_are_validated_by_the_same_schema(calc_repo, registry):
    _, (wrong, unknown) = call(build_server(calc_repo, registry),
                               ("apply_candidates", {"version": 2, "candidates": [{"search": "a", "replace": "b"}]}),
                               ("apply_candidates", {"version": 1, "candidates": [{"id": "x", "edits": [
                                   {"file": "calc/ops.py", "serach": "a", "replace": "b"}]}]}))
    assert wrong.is_error and "$.version" in wrong.content[0].text
    assert unknown.is_error and "must not contain" in unknown.content[0].text


def stdio(repo):
    """The parameters that start the real ``gen09 mcp`` subprocess on ``repo``."""
    script = Path(sys.executable).with_name("gen09")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "gen09_core"]
    return StdioServerParameters(command=command[0], args=[*command[1:], "mcp", "--repo", str(repo)])


def test_the_real_gen09_mcp_subprocess_serves_the_same_tools_over_stdio(calc_repo):
    listed, (report, written) = call(stdio(calc_repo), ("apply_candidates", UDIFF), ("write_candidate", {**UDIFF, "id": "u1"}))
    assert len(listed.tools) == 4
    assert [c["status"] for c in report.structured_content["candidates"]] == ["valid", "rejected", "rejected"]
    assert report.structured_content["candidates"][2]["reason"] == "malformed_patch"
    assert written.structured_content["written"]["files"] == ["calc/ops.py"]
    assert "# sum" in (calc_repo / "calc/ops.py").read_text()


def test_a_warm_server_never_answers_a_changed_file_from_its_caches(calc_repo, tmp_path):
    """One ``gen09 mcp`` process keeps the parsed, linted and normalized forms of the files it
    has seen, keyed by content: after each change on disk — one that keeps the file's size and
    modification time, then one that makes it stop compiling — its report is the one a fresh
    ``gen09 apply --json`` prints."""
    batch = {**json.loads((EXAMPLES / "candidates.json").read_text()), "target": {"file": "calc/ops.py"}}
    (tmp_path / "c.json").write_text(json.dumps(batch))
    ops = calc_repo / "calc/ops.py"
    original = ops.read_text()
    same_size = original.replace("import math", "import bb  ")  # bb is defined (F401), math is not
    states = [original, same_size, same_size + "def broken(:\n"]

    async def main():
        pairs = []
        async with Client(stdio(calc_repo)) as client:
            for text in states:
                before = ops.stat()
                ops.write_text(text)
                os.utime(ops, ns=(before.st_atime_ns, before.st_mtime_ns))
                warm = (await client.call_tool("apply_candidates", batch)).structured_content
                cold = json.loads(run_gen09("apply", tmp_path / "c.json", "--repo", calc_repo, "--json").stdout)
                pairs.append((warm, {**cold, "repo": warm["repo"]}))
        return pairs

    pairs = anyio.run(main)
    assert all(warm == cold for warm, cold in pairs)
    status = [{c["id"]: c["status"] for c in warm["candidates"]} for warm, _ in pairs]
    assert status[0]["undefined-name"] == "rejected" and status[1]["undefined-name"] == "valid"
    assert status[2]["fix"] == "valid"  # its parse error is the original's own


def test_gen09_mcp_without_the_sdk_says_how_to_install_it(tmp_path):
    """An ``mcp`` package that cannot be imported shadows the SDK: the CLI still starts."""
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "__init__.py").write_text("raise ImportError('no sdk here')\n")
    done = subprocess.run([sys.executable, "-m", "gen09_core", "mcp"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, stdin=subprocess.DEVNULL)
    assert done.returncode == 3 and "pip install 'gen09[mcp]'" in done.stderr
    assert run_gen09("--help").returncode == 0
