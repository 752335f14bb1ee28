"""The one metered model client: the L-column guard, metering, pricing, record and replay."""

import json
import subprocess
import sys

import pytest

from gen09_core import llm
from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.generators.openai_chat import OpenAIChatGenerator
from tests.helpers import EXAMPLES, run_gen09
from tests.openai_server import ChatServer, Reply, candidates_content, completion

BODY = {"model": "test-model", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.8,
        "max_completion_tokens": 4096, "n": 1}
FIX = ("    return a - b  # bug: should add\n", "    return a + b\n")


@pytest.fixture
def server():
    with ChatServer() as srv:
        yield srv


def client_for(server, **kwargs):
    endpoint = llm.Endpoint(server.url, "test-model", "sk-secret", timeout=10, retries=0)
    return llm.ModelClient(endpoint, OpenAIChatGenerator(), **kwargs)


def test_the_client_refuses_outside_the_generator_scope(server):
    client = client_for(server)
    with pytest.raises(llm.LColumnViolation, match="outside the generator stage"):
        client.complete("generate", BODY)
    with pytest.raises(llm.LColumnViolation):
        OpenAIChatGenerator().complete(BODY, client.endpoint)
    assert server.requests == [] and client.calls == []


def test_the_scope_ends_with_its_block(server):
    server.default = Reply(body=completion("x"))
    client = client_for(server)
    with llm.generator_scope():
        client.complete("generate", BODY)
    with pytest.raises(llm.LColumnViolation):
        client.complete("generate", BODY)
    assert len(server.requests) == 1


def test_metering_and_cost(server, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"test-model": {"prompt_per_mtok": 0.5, "completion_per_mtok": 1.5}}))
    server.default = Reply(body=completion("x", usage=(1000, 2000)))
    client = client_for(server, prices=llm.PriceTable.load(str(prices)))
    with llm.generator_scope():
        reply = client.complete("generate", BODY)
    record = reply.record
    assert (record.role, record.model, record.prompt_tokens, record.completion_tokens) == \
        ("generate", "test-model", 1000, 2000)
    assert record.cost_usd == pytest.approx(0.0035) and record.attempts == 1 and record.ok
    assert record.latency_ms >= 0
    assert llm.usage_summary(client.calls)["cost_usd"] == pytest.approx(0.0035)


def test_unknown_price_or_usage_is_unknown_not_zero(server):
    server.push(Reply(body=completion("x")), Reply(body=completion("x", usage=None)))
    client = client_for(server)  # empty price table
    with llm.generator_scope():
        first = client.complete("generate", BODY).record
        second = client.complete("generate", BODY).record
    assert first.cost_usd is None and first.prompt_tokens == 120
    assert second.prompt_tokens is None and second.cost_usd is None
    summary = llm.usage_summary(client.calls)
    assert summary["cost_usd"] is None and summary["prompt_tokens"] is None and summary["calls"] == 2


def test_price_table_is_validated(tmp_path, monkeypatch):
    bad = tmp_path / "prices.json"
    bad.write_text(json.dumps({"m": {"prompt_per_mtok": 1}}))
    with pytest.raises(BadInput, match="prompt_per_mtok and completion_per_mtok"):
        llm.PriceTable.load(str(bad))
    with pytest.raises(BadInput):
        llm.PriceTable.load(str(tmp_path / "missing.json"))
    monkeypatch.delenv(llm.ENV_PRICES, raising=False)
    assert llm.PriceTable.load(None).prices == {}


def test_record_then_replay_without_network(server, tmp_path):
    cassette = tmp_path / "run.jsonl"
    server.default = Reply(body=completion("answer", usage=(7, 9)))
    client = client_for(server, record=cassette)
    with llm.generator_scope():
        live = client.complete("generate", BODY)
    line = json.loads(cassette.read_text())
    assert line["request"] == BODY and line["response"] == live.body
    assert "sk-secret" not in cassette.read_text()
    server.__exit__()  # no network from here on
    replayer = llm.ModelClient(llm.Endpoint(None, "test-model"), None, replay=cassette)
    with llm.generator_scope():
        again = replayer.complete("generate", BODY)
    assert again.body == live.body and again.record == live.record
    with llm.generator_scope(), pytest.raises(BadInput, match="no unused recording"):
        replayer.complete("generate", BODY)  # each recording answers once
    with llm.generator_scope(), pytest.raises(BadInput, match="no unused recording"):
        llm.ModelClient(llm.Endpoint(), None, replay=cassette).complete(
            "generate", {**BODY, "temperature": 0})


def test_a_recorded_transport_failure_replays_as_the_same_failure(server, tmp_path):
    cassette = tmp_path / "fail.jsonl"
    server.default = Reply(500, {"error": {"message": "boom"}})
    client = client_for(server, record=cassette)
    with llm.generator_scope(), pytest.raises(EnvironmentFailure) as live:
        client.complete("generate", BODY)
    replayer = llm.ModelClient(llm.Endpoint(), None, replay=cassette)
    with llm.generator_scope(), pytest.raises(EnvironmentFailure) as replayed:
        replayer.complete("generate", BODY)
    assert str(replayed.value) == str(live.value) + " [replayed]"


def test_a_broken_cassette_is_bad_input(tmp_path):
    cassette = tmp_path / "bad.jsonl"
    cassette.write_text("{not json\n")
    with llm.generator_scope(), pytest.raises(BadInput, match="line 1"):
        llm.ModelClient(llm.Endpoint(), None, replay=cassette).complete("generate", BODY)


@pytest.mark.parametrize("command", ["generate", "run"])
def test_cli_replay_is_byte_identical(server, calc_repo, tmp_path, command):
    cassette = tmp_path / "cassette.jsonl"
    server.default = Reply(body=completion(candidates_content(FIX, ("a - b", "b + a"))))
    args = (command, EXAMPLES / "upstream.json", "--repo", calc_repo, "--json")
    live = run_gen09(*args, "--base-url", server.url, "--model", "test-model", "--record", cassette)
    assert live.returncode == 0, live.stderr
    server.__exit__()
    replay = run_gen09(*args, "--replay", cassette)
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout == live.stdout
    assert replay.stderr == live.stderr
    assert len(server.requests) == 1


def test_cli_replay_of_a_different_request_is_refused(server, calc_repo, tmp_path):
    cassette = tmp_path / "cassette.jsonl"
    server.default = Reply(body=completion(candidates_content(FIX)))
    args = ("generate", EXAMPLES / "upstream.json", "--repo", calc_repo)
    assert run_gen09(*args, "--base-url", server.url, "--model", "m", "--record", cassette).returncode == 0
    result = run_gen09(*args, "--replay", cassette, "--n", "3")
    assert result.returncode == 2 and "no unused recording" in result.stderr


def test_the_example_cassette_replays(calc_repo):
    result = run_gen09("run", EXAMPLES / "upstream.json", "--repo", calc_repo,
                       "--replay", EXAMPLES / "cassette.jsonl", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["report"]["summary"]["valid"] >= 1
    assert doc["generation"]["calls"][0]["model"] == "example-model"


def test_loading_the_cli_does_not_import_the_sdk():
    code = ("import sys, gen09_core.cli\nfrom gen09_core.plugins import default_registry\n"
            "assert default_registry().generator == 'openai'\nassert 'openai' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
