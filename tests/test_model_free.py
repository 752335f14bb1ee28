"""The L column (only the generator may reach a model): stages (a), (b), (d), (e), (f) make
no model call.

The proof runs the real stages — ``intent.assemble``, ``represent.select`` and
``pipeline.run_batch`` on ``examples/candidates.json`` over a copy of ``examples/calc`` —
with every route to a model wired to fail loudly:

- a spy plugin answers first on every hook those stages call (representation, application,
  parsing, linting, normalization, entity location) and, from inside the stage, tries the
  real metered client pointed at a live loopback server: it must get ``LColumnViolation``;
- the openai SDK's request method and in-process socket connections raise;
- the process-wide attempt counter and the loopback server's request log stay unchanged.
"""

import json
import socket

import openai
import pytest

from gen09_core import hookimpl, llm, represent
from gen09_core.candidates import load
from gen09_core.generators.openai_chat import OpenAIChatGenerator
from gen09_core.intent import assemble
from gen09_core.pipeline import run_batch
from gen09_core.plugins import make_registry
from tests.helpers import EXAMPLES
from tests.openai_server import ChatServer, Reply, completion

BODY = {"model": "test-model", "messages": [{"role": "user", "content": "x"}]}


class Spy:
    """Runs first on every deterministic hook and tries to reach the model from there."""

    def __init__(self, client):
        self.client = client
        self.seen: dict[str, list[str]] = {}

    def _try(self, hook):
        try:
            self.client.complete("spy", BODY)
            outcome = "CALLED THE MODEL"
        except llm.LColumnViolation:
            outcome = "refused"
        except BaseException as exc:  # any other route is a failure too
            outcome = f"{type(exc).__name__}: {exc}"
        self.seen.setdefault(hook, []).append(outcome)

    @hookimpl(tryfirst=True)
    def gen09_select_representation(self):
        self._try("select_representation")

    @hookimpl(tryfirst=True)
    def gen09_apply_edits(self):
        self._try("apply_edits")

    @hookimpl(tryfirst=True)
    def gen09_parse(self):
        self._try("parse")

    @hookimpl(tryfirst=True)
    def gen09_lint(self):
        self._try("lint")

    @hookimpl(tryfirst=True)
    def gen09_normalize(self):
        self._try("normalize")

    @hookimpl(tryfirst=True)
    def gen09_entities(self):
        self._try("entities")


@pytest.fixture
def server():
    with ChatServer() as srv:
        srv.default = Reply(body=completion("positive control"))
        yield srv


def test_stages_a_b_d_e_f_make_no_model_call(calc_repo, server, monkeypatch):
    client = llm.ModelClient(llm.Endpoint(server.url, "test-model", timeout=10, retries=0),
                             OpenAIChatGenerator())
    with llm.generator_scope():  # positive control: the same client works inside stage (c)
        client.complete("generate", BODY)
    assert len(server.requests) == 1

    def tripwire(*args, **kwargs):
        raise AssertionError("a model request was attempted outside the generator stage")

    monkeypatch.setattr(openai._base_client.SyncAPIClient, "request", tripwire)
    monkeypatch.setattr(socket.socket, "connect", tripwire)
    attempts = llm.attempts_made()

    spy = Spy(client)
    registry = make_registry(extra=[("spy", spy)])
    upstream = json.loads((EXAMPLES / "upstream.json").read_text())
    package = assemble(upstream, calc_repo, registry)  # (a)
    representation = represent.select(registry, package.target)  # (b)
    report = run_batch(load(str(EXAMPLES / "candidates.json")), calc_repo, registry)  # (b) (d) (e) (f)

    assert representation.format == "search_replace"
    assert package.requirement and package.target.span.as_list() == [6, 8]
    statuses = {o.id: o.status for o in report.outcomes}
    assert statuses["fix"] == "valid" and statuses["fix-commented"] == "duplicate"
    assert statuses["syntax-error"] == "rejected" and statuses["undefined-name"] == "rejected"
    assert set(spy.seen) == {"select_representation", "apply_edits", "parse", "lint", "normalize",
                             "entities"}
    assert all(outcome == "refused" for outcomes in spy.seen.values() for outcome in outcomes), spy.seen
    assert llm.attempts_made() == attempts
    assert len(server.requests) == 1
    assert client.calls[-1].role == "generate" and len(client.calls) == 1
