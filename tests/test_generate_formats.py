"""Stage (c) in the patch formats: ``--format udiff|apply_patch`` asks the model for patches
(structured output where the server supports it) and parses them strictly, all or nothing —
against the loopback chat-completions server through the real openai SDK."""

import json

import pytest

from gen09_core import represent
from gen09_core.generate import Settings, generate, make_client, parse_text
from gen09_core.intent import assemble
from gen09_core.llm import Endpoint
from gen09_core.pipeline import run_batch
from tests.helpers import EXAMPLES, run_gen09
from tests.openai_server import ChatServer, Reply, completion

UPSTREAM = json.loads((EXAMPLES / "upstream.json").read_text())
UDIFF = ("--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -6,3 +6,3 @@\n def add(a, b):\n"
         '     """Return the sum of a and b."""\n-    return a - b  # bug: should add\n+    return a + b\n')
V4A = ("*** Begin Patch\n*** Update File: calc/ops.py\n@@ def add(a, b):\n"
       "-    return a - b  # bug: should add\n+    return b + a\n*** End Patch")
BROKEN = "--- a/calc/ops.py\n+++ b/calc/ops.py\n-    return a - b\n"


@pytest.fixture
def server():
    with ChatServer() as srv:
        yield srv


def generate_in(fmt, calc_repo, registry, server, **settings):
    package = assemble(UPSTREAM, calc_repo, registry)
    rep = represent.override(represent.select(registry, package.target), fmt, "--format")
    client = make_client(registry, Endpoint(server.url, "test-model", retries=0))
    return generate(package, rep, client, Settings(**settings), calc_repo, registry)


@pytest.mark.parametrize("fmt, patch", [("udiff", UDIFF), ("apply_patch", V4A)])
def test_a_patch_format_is_asked_for_with_its_schema_and_applied(fmt, patch, calc_repo, registry, server):
    server.push(Reply(body=completion(json.dumps({"candidates": [{"patch": patch}]}))))
    gen = generate_in(fmt, calc_repo, registry, server, n=1)
    body = server.bodies[0]
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["candidates"]["items"]["required"] == ["patch"]
    prompt = body["messages"][1]["content"]
    assert f"{fmt}: each candidate" in prompt and "def hypot(a, b):" in prompt  # the file's text
    assert gen.batch_json["format"] == fmt and gen.batch_json["candidates"] == [{"id": "c1", "patch": patch}]
    assert "given by --format" in gen.representation.reason
    report = run_batch(gen.batch, calc_repo, registry)
    assert [o.status for o in report.outcomes] == ["valid"]


def test_one_malformed_patch_makes_the_whole_answer_unusable(calc_repo, registry, server):
    server.push(Reply(body=completion(json.dumps({"candidates": [{"patch": UDIFF}, {"patch": BROKEN}]}))))
    gen = generate_in("udiff", calc_repo, registry, server, n=2)
    assert gen.batch is None and gen.regenerate
    assert gen.failure.startswith("choice 0: malformed patch: candidates[1]: line 3:")


def test_text_mode_reads_fenced_diffs_and_v4a_blocks(calc_repo, registry, server):
    assert parse_text(f"Sure:\n```diff\n{UDIFF}```\n", "udiff") == [{"patch": UDIFF}]
    assert parse_text(f"{V4A}\n\nand\n\n{V4A}\n", "apply_patch") == [{"patch": V4A}, {"patch": V4A}]
    server.push(Reply(body=completion(f"```diff\n{BROKEN}```\n")))
    gen = generate_in("udiff", calc_repo, registry, server, n=1, output="text")
    assert "response_format" not in server.bodies[0]
    assert gen.regenerate and "malformed patch: patch 0" in gen.failure


def test_cli_generate_and_run_take_format(calc_repo, server, tmp_path):
    server.default = Reply(body=completion(json.dumps({"candidates": [{"patch": V4A}]})))
    out = tmp_path / "c.json"
    done = run_gen09("generate", EXAMPLES / "upstream.json", "--repo", calc_repo, "--base-url", server.url,
                     "--model", "m", "--n", "1", "--format", "apply_patch", "--out", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["format"] == "apply_patch"
    ran = run_gen09("run", EXAMPLES / "upstream.json", "--repo", calc_repo, "--base-url", server.url,
                    "--model", "m", "--n", "1", "--format", "apply_patch", "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["report"]["summary"]["valid"] == 1
