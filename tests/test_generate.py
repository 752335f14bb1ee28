"""Stage (c) against a real loopback chat-completions server through the real openai SDK."""

import json

import pytest

from gen09_core import represent
from gen09_core.errors import BadInput, EnvironmentFailure
from gen09_core.generate import (
    ParseFailure,
    Settings,
    generate,
    generate_from_upstream,
    make_client,
    parse_text,
)
from gen09_core.intent import assemble
from gen09_core.llm import Endpoint
from gen09_core.models import Representation
from gen09_core.pipeline import run_batch
from tests.helpers import EXAMPLES, run_gen09
from tests.openai_server import ChatServer, Reply, candidates_content, completion

UPSTREAM = json.loads((EXAMPLES / "upstream.json").read_text())
BUG = "    return a - b  # bug: should add\n"
FIXES = [
    (BUG, "    return a + b\n"),
    ("return a - b", "return b + a"),
    ("a - b", "a + b"),
    ("return a - b  # bug: should add", "return sum((a, b))"),
]


@pytest.fixture
def server():
    with ChatServer() as srv:
        yield srv


@pytest.fixture
def package(calc_repo, registry):
    return assemble(UPSTREAM, calc_repo, registry)


def run(package, calc_repo, registry, server, retries=0, timeout=10.0, **settings):
    endpoint = Endpoint(server.url, "test-model", "sk-test", timeout=timeout, retries=retries,
                        retry_backoff=0)
    client = make_client(registry, endpoint)
    rep = represent.select(registry, package.target)
    return generate(package, rep, client, Settings(**settings), calc_repo, registry)


def test_well_formed_array_makes_one_call_with_the_spec_numbers(package, calc_repo, registry, server):
    server.push(Reply(body=completion(candidates_content(*FIXES))))
    gen = run(package, calc_repo, registry, server)
    assert len(server.requests) == 1
    body = server.bodies[0]
    assert server.requests[0]["path"] == "/v1/chat/completions"
    assert server.requests[0]["headers"]["authorization"] == "Bearer sk-test"
    assert body["temperature"] == 0.8
    assert body["max_completion_tokens"] == 4096
    assert body["n"] == 1
    assert body["model"] == "test-model"
    schema = body["response_format"]["json_schema"]
    assert body["response_format"]["type"] == "json_schema" and schema["strict"] is True
    assert schema["schema"]["properties"]["candidates"]["maxItems"] == 4
    prompt = body["messages"][1]["content"]
    order = [prompt.index(h) for h in ("# 1. intent_package", "# 2. edit_format", "# 3. n_candidates")]
    assert order == sorted(order)
    assert json.dumps(package.prompt_json(), indent=2) in prompt
    assert gen.fired and not gen.regenerate and len(gen.calls) == 1
    assert gen.calls[0].prompt_tokens == 120 and gen.calls[0].completion_tokens == 80
    assert gen.batch_json["version"] == 1 and gen.batch_json["format"] == "search_replace"
    assert gen.batch_json["target"] == {"file": "calc/ops.py", "span": [6, 8], "entity": "calc.ops.add"}
    assert [c["id"] for c in gen.batch_json["candidates"]] == ["c1", "c2", "c3", "c4"]
    report = run_batch(gen.batch, calc_repo, registry)
    assert [o.status for o in report.outcomes] == ["valid", "valid", "duplicate", "valid"]


def test_n_choices_mode_asks_the_server_for_n(package, calc_repo, registry, server):
    server.push(Reply(body=completion(*(candidates_content(f) for f in FIXES[:3]))))
    gen = run(package, calc_repo, registry, server, n=3, sampling="choices")
    assert len(server.requests) == 1
    body = server.bodies[0]
    assert body["n"] == 3 and body["temperature"] == 0.8
    assert body["response_format"]["json_schema"]["schema"]["properties"]["candidates"]["maxItems"] == 1
    assert len(gen.batch.candidates) == 3 and not gen.regenerate


def test_choices_mode_reports_a_server_that_ignores_n(package, calc_repo, registry, server):
    server.push(Reply(body=completion(candidates_content(FIXES[0]))))
    gen = run(package, calc_repo, registry, server, n=4, sampling="choices")
    assert len(gen.batch.candidates) == 1
    assert any("1 of 4" in note for note in gen.notes)


def test_n_is_bounded_and_defaults_to_four():
    assert Settings().n == 4
    with pytest.raises(BadInput):
        Settings(n=11)
    with pytest.raises(BadInput):
        Settings(max_completion_tokens=5000)
    assert Settings(n=10).n == 10


@pytest.mark.parametrize("content, why", [
    ('{"candidates": [{"search": "a - b", "replace": ', "not JSON"),
    ("Sure! Here you go: a + b", "not JSON"),
    ('{"candidates": [{"search": "a - b", "replace": "a + b", "why": "x"}]}', "schema violation"),
    ('{"candidates": [{"search": "a - b", "replace": 3}]}', "schema violation"),
    ('{"candidates": [{"search": "a - b"}]}', "schema violation"),
    ('{"answer": []}', "schema violation"),
    ('{"candidates": []}', "schema violation"),
    ('{"candidates": [{"search": "", "replace": "x"}]}', "empty search"),
])
def test_unusable_answer_is_an_empty_set_with_regenerate(package, calc_repo, registry, server,
                                                         content, why):
    server.push(Reply(body=completion(content)))
    gen = run(package, calc_repo, registry, server)
    assert len(server.requests) == 1
    assert gen.fired and gen.regenerate and gen.batch is None and gen.batch_json is None
    assert why in gen.failure
    assert len(gen.calls) == 1


def test_a_truncated_answer_says_so(package, calc_repo, registry, server):
    server.push(Reply(body=completion('{"candidates": [{"search": "a', finish_reason="length")))
    gen = run(package, calc_repo, registry, server)
    assert gen.regenerate and "cut at max_completion_tokens" in gen.failure


def test_more_candidates_than_asked_is_a_schema_violation(package, calc_repo, registry, server):
    server.push(Reply(body=completion(candidates_content(*FIXES))))
    gen = run(package, calc_repo, registry, server, n=2)
    assert gen.regenerate and "at most 2" in gen.failure


def test_missing_fields_in_the_response(package, calc_repo, registry, server):
    body = completion("x")
    del body["choices"][0]["message"]["content"]
    server.push(Reply(body=body), Reply(body={"id": "x", "object": "chat.completion"}))
    first = run(package, calc_repo, registry, server)
    second = run(package, calc_repo, registry, server)
    assert first.regenerate and "no text content" in first.failure
    assert second.regenerate and "no choices" in second.failure
    assert len(server.requests) == 2


def test_greedy_fallback_is_one_more_call_at_temperature_zero(package, calc_repo, registry, server):
    server.push(Reply(body=completion("not json")),
                Reply(body=completion(candidates_content(FIXES[0]))))
    gen = run(package, calc_repo, registry, server, on_parse_failure="greedy")
    assert len(server.requests) == 2
    first, second = server.bodies
    assert first["temperature"] == 0.8
    assert second["temperature"] == 0 and second["n"] == 1
    assert second["response_format"]["json_schema"]["schema"]["properties"]["candidates"]["maxItems"] == 1
    assert [c.role for c in gen.calls] == ["generate", "greedy_fallback"]
    assert len(gen.batch.candidates) == 1 and not gen.regenerate


def test_greedy_fallback_that_fails_too_stops_there(package, calc_repo, registry, server):
    server.default = Reply(body=completion("still not json"))
    gen = run(package, calc_repo, registry, server, on_parse_failure="greedy")
    assert len(server.requests) == 2
    assert gen.regenerate and gen.failure.startswith("greedy fallback")


def test_a_500_then_success_is_one_call_with_two_attempts(package, calc_repo, registry, server):
    server.push(Reply(500, {"error": {"message": "overloaded"}}),
                Reply(body=completion(candidates_content(FIXES[0]))))
    gen = run(package, calc_repo, registry, server, retries=2)
    assert len(server.requests) == 2
    assert server.bodies[0] == server.bodies[1]  # a resend, never a re-prompt
    assert len(gen.calls) == 1 and gen.calls[0].attempts == 2 and gen.calls[0].ok
    assert len(gen.batch.candidates) == 1


def test_persistent_5xx_is_reported_after_bounded_retries(package, calc_repo, registry, server):
    server.default = Reply(503, {"error": {"message": "down for maintenance"}})
    with pytest.raises(EnvironmentFailure, match=r"HTTP 503.*down for maintenance.*3 attempts"):
        run(package, calc_repo, registry, server, retries=2)
    assert len(server.requests) == 3


def test_a_timeout_is_reported_clearly(package, calc_repo, registry, server):
    server.default = Reply(stall=True)
    with pytest.raises(EnvironmentFailure, match=r"timed out after 0.3 s.*2 attempts"):
        run(package, calc_repo, registry, server, retries=1, timeout=0.3)
    assert len(server.requests) == 2


def test_a_429_is_retried_then_reported(package, calc_repo, registry, server):
    server.default = Reply(429, {"error": {"message": "slow down"}}, headers={"retry-after": "0"})
    with pytest.raises(EnvironmentFailure, match=r"rate limited \(HTTP 429\): slow down.*2 attempts"):
        run(package, calc_repo, registry, server, retries=1)
    assert len(server.requests) == 2
    assert server.bodies[0] == server.bodies[1]


def test_a_429_then_success(package, calc_repo, registry, server):
    server.push(Reply(429, {"error": {"message": "slow down"}}, headers={"retry-after-ms": "0"}),
                Reply(body=completion(candidates_content(FIXES[0]))))
    gen = run(package, calc_repo, registry, server, retries=1)
    assert gen.calls[0].attempts == 2 and len(gen.batch.candidates) == 1


def test_a_400_is_not_retried(package, calc_repo, registry, server):
    server.default = Reply(400, {"error": {"message": "response_format json_schema unsupported"}})
    with pytest.raises(EnvironmentFailure, match=r"HTTP 400.*unsupported.*1 attempt; not retryable"):
        run(package, calc_repo, registry, server, retries=2)
    assert len(server.requests) == 1


def test_no_requirement_or_no_span_does_not_fire(calc_repo, registry, server):
    endpoint = Endpoint(server.url, "test-model", retries=0)
    client = make_client(registry, endpoint)
    rep = Representation("localized-edit", "search_replace", "test")
    no_requirement = assemble({**UPSTREAM, "plan": {"validation": ["t"]}}, calc_repo, registry)
    gen = generate(no_requirement, rep, client, repo=calc_repo, registry=registry)
    assert not gen.fired and gen.reason.startswith("no_requirement") and gen.calls == ()
    blank = assemble({**UPSTREAM, "plan": {"requirement": "  "}}, calc_repo, registry)
    assert generate(blank, rep, client, repo=calc_repo).reason.startswith("no_requirement")
    loc = {k: v for k, v in UPSTREAM["localization"].items() if k != "span"}
    no_span = assemble({**UPSTREAM, "localization": loc}, calc_repo, registry)
    gen = generate(no_span, rep, client, repo=calc_repo, registry=registry)
    assert not gen.fired and gen.reason.startswith("no_target_span")
    (calc_repo / "calc" / "ops.py").write_text("x = 1\ny = 2\nz = 3\n")
    package = assemble({**UPSTREAM, "localization": {"file": "calc/ops.py", "span": [2, 3]}},
                       calc_repo, registry)
    (calc_repo / "calc" / "ops.py").write_text("x = 1\n")  # the span no longer exists
    gen = generate(package, rep, client, repo=calc_repo, registry=registry)
    assert not gen.fired and gen.reason.startswith("invalid_target_span")
    assert server.requests == []


def test_text_mode_parses_fenced_search_replace(package, calc_repo, registry, server):
    text = ("Here are the candidates.\n```\n<<<<<<< SEARCH\n" + BUG + "=======\n    return a + b\n"
            ">>>>>>> REPLACE\n```\n\n<<<<<<< SEARCH\n" + BUG + "=======\n    return b + a\n"
            ">>>>>>> REPLACE\n")
    server.push(Reply(body=completion(text)))
    gen = run(package, calc_repo, registry, server, n=2, output="text")
    assert "response_format" not in server.bodies[0]
    assert "<<<<<<< SEARCH" in server.bodies[0]["messages"][1]["content"]
    records = gen.batch_json["candidates"]
    assert records[0] == {"id": "c1", "search": BUG, "replace": "    return a + b\n"}
    assert records[1]["replace"] == "    return b + a\n"
    report = run_batch(gen.batch, calc_repo, registry)
    assert [o.status for o in report.outcomes] == ["valid", "valid"]


def test_text_mode_malformed_block_regenerates(package, calc_repo, registry, server):
    server.push(Reply(body=completion("<<<<<<< SEARCH\nreturn a - b\n>>>>>>> REPLACE\n")))
    gen = run(package, calc_repo, registry, server, output="text")
    assert gen.regenerate and "malformed" in gen.failure


def test_json_object_mode(package, calc_repo, registry, server):
    server.push(Reply(body=completion("```json\n" + candidates_content(FIXES[0]) + "\n```")))
    gen = run(package, calc_repo, registry, server, output="json_object")
    assert server.bodies[0]["response_format"] == {"type": "json_object"}
    assert len(gen.batch.candidates) == 1


def test_whole_file_format(package, calc_repo, registry, server):
    new_file = (calc_repo / "calc" / "ops.py").read_text().replace("a - b", "a + b")
    server.push(Reply(body=completion(json.dumps({"candidates": [{"content": new_file}]}))))
    endpoint = Endpoint(server.url, "test-model", retries=0)
    rep = Representation("structural-rewrite", "whole_file", "test")
    gen = generate(package, rep, make_client(registry, endpoint), repo=calc_repo, registry=registry)
    body = server.bodies[0]
    assert body["response_format"]["json_schema"]["schema"]["properties"]["candidates"]["items"][
        "required"] == ["content"]
    assert "def hypot(a, b):" in body["messages"][1]["content"]  # the whole current file
    assert gen.batch_json["candidates"] == [{"id": "c1", "content": new_file}]
    assert parse_text("```python\nx = 1\n```\n", "whole_file") == [{"content": "x = 1\n"}]
    with pytest.raises(ParseFailure):
        parse_text("no fence", "whole_file")


def test_live_use_needs_an_endpoint_and_a_model(registry):
    with pytest.raises(BadInput, match="GEN09_BASE_URL"):
        make_client(registry, Endpoint(None, "m"))
    with pytest.raises(BadInput, match="GEN09_MODEL"):
        make_client(registry, Endpoint("http://127.0.0.1:9/v1", None))


def test_cli_generate_pipes_into_apply(calc_repo, server, tmp_path):
    server.default = Reply(body=completion(candidates_content(*FIXES[:2])))
    out = tmp_path / "candidates.json"
    result = run_gen09("generate", EXAMPLES / "upstream.json", "--repo", calc_repo, "--base-url",
                       server.url, "--model", "test-model", "--n", "2", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "2 candidate(s) from 1 call(s)" in result.stderr and "cost unknown" in result.stderr
    applied = run_gen09("apply", out, "--repo", calc_repo, "--json")
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout)["summary"]["valid"] == 2
    piped = run_gen09("generate", EXAMPLES / "upstream.json", "--repo", calc_repo, "--base-url",
                      server.url, "--model", "test-model", "--n", "2")
    assert json.loads(piped.stdout) == json.loads(out.read_text())


def test_cli_run_prints_valid_set_and_usage(calc_repo, server, tmp_path):
    server.default = Reply(body=completion(candidates_content(*FIXES)))
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"test-model": {"prompt_per_mtok": 1.0, "completion_per_mtok": 2.0}}))
    env_args = ("--repo", calc_repo, "--base-url", server.url, "--model", "test-model",
                "--prices", prices)
    result = run_gen09("run", EXAMPLES / "upstream.json", *env_args, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["generation"]["usage"] == {"calls": 1, "prompt_tokens": 120, "completion_tokens": 80,
                                          "latency_ms": doc["generation"]["usage"]["latency_ms"],
                                          "cost_usd": 0.00028}
    assert doc["report"]["summary"]["valid"] == 3
    table = run_gen09("run", EXAMPLES / "upstream.json", *env_args)
    assert table.returncode == 0 and "+    return a + b" in table.stdout
    assert "cost $0.000280" in table.stderr


def test_cli_not_fired_and_regenerate_exit_1(calc_repo, server, tmp_path):
    upstream = tmp_path / "up.json"
    upstream.write_text(json.dumps({k: v for k, v in UPSTREAM.items() if k != "plan"}))
    result = run_gen09("generate", upstream, "--repo", calc_repo)  # no endpoint needed
    assert result.returncode == 1 and "not fired: no_requirement" in result.stderr
    server.default = Reply(body=completion("nope"))
    result = run_gen09("run", EXAMPLES / "upstream.json", "--repo", calc_repo, "--base-url",
                       server.url, "--model", "m", "--json")
    assert result.returncode == 1
    assert json.loads(result.stdout)["generation"]["regenerate"] is True
    assert "regenerate" in result.stderr and "Traceback" not in result.stderr


def test_cli_transport_failure_exit_3(calc_repo, server):
    server.default = Reply(502, "<html>bad gateway</html>")
    result = run_gen09("generate", EXAMPLES / "upstream.json", "--repo", calc_repo, "--base-url",
                       server.url, "--model", "m", "--retries", "1")
    assert result.returncode == 3
    assert "HTTP 502" in result.stderr and "2 attempts" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_env_vars_configure_the_endpoint(calc_repo, server, monkeypatch):
    server.default = Reply(body=completion(candidates_content(FIXES[0])))
    monkeypatch.setenv("GEN09_BASE_URL", server.url)
    monkeypatch.setenv("GEN09_MODEL", "env-model")
    monkeypatch.setenv("GEN09_API_KEY", "sk-env")
    result = run_gen09("generate", EXAMPLES / "upstream.json", "--repo", calc_repo)
    assert result.returncode == 0, result.stderr
    assert server.bodies[0]["model"] == "env-model"
    assert server.requests[0]["headers"]["authorization"] == "Bearer sk-env"


def test_library_entry_runs_a_to_c(calc_repo, registry, server):
    server.default = Reply(body=completion(candidates_content(FIXES[0])))
    client = make_client(registry, Endpoint(server.url, "test-model", retries=0))
    package, gen = generate_from_upstream(UPSTREAM, calc_repo, client, Settings(n=1), registry)
    assert package.target.entity == "calc.ops.add" and gen.representation.format == "search_replace"
    assert run_batch(gen.batch, calc_repo, registry).summary()["valid"] == 1
