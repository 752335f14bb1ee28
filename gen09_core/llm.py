"""The one metered model client: the only path from gen09 to a model.

Every model call in gen09 goes through ``ModelClient.complete``. The client

- refuses to run outside ``generator_scope()`` — the scope stage (c) opens around its one
  call — so any other stage touching it raises ``LColumnViolation``;
- meters each call: role, model, prompt/completion tokens, latency, attempts and cost from a
  configurable price table (an unknown price is reported as unknown, never as zero);
- retries transport failures (timeouts, connection errors, 408/409/429/5xx) a bounded number
  of times with the *same* request — a resend of an unanswered request, never a re-prompt;
- records every call to a JSONL cassette and replays one with no network, byte-identically.

The wire contract between this client and a generator plugin is the OpenAI chat-completions
request body in, the response body out (both plain JSON dicts); see
``gen09_core.interfaces.Generator``.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from attrs import field, frozen

if TYPE_CHECKING:
    from gen09_core.interfaces import Generator

from gen09_core.errors import BadInput, EnvironmentFailure

ENV_BASE_URL = "GEN09_BASE_URL"
ENV_MODEL = "GEN09_MODEL"
ENV_API_KEY = "GEN09_API_KEY"
ENV_PRICES = "GEN09_PRICES"
CASSETTE_VERSION = 1
MAX_RETRY_AFTER = 60.0

_IN_GENERATOR = contextvars.ContextVar("gen09_in_generator", default=False)
_ATTEMPTS = {"count": 0}  # process-wide count of transport attempts (live or replayed)


class LColumnViolation(RuntimeError):
    """A model was reached outside stage (c): a bug, never a user error."""


@contextlib.contextmanager
def generator_scope():
    """The only context in which a model may be called: stage (c), the generator."""
    token = _IN_GENERATOR.set(True)
    try:
        yield
    finally:
        _IN_GENERATOR.reset(token)


def require_scope(what: str = "the model client") -> None:
    """Raise ``LColumnViolation`` unless running inside ``generator_scope()``."""
    if not _IN_GENERATOR.get():
        raise LColumnViolation(
            f"{what} was used outside the generator stage (c); only the generator may call a "
            "model: only the candidate generator may"
        )


def attempts_made() -> int:
    """How many transport attempts this process has made (live and replayed), for audits."""
    return _ATTEMPTS["count"]


class TransportError(Exception):
    """A generator's report that a request got no usable answer.

    ``retryable`` marks failures a resend may cure (timeouts, connection errors,
    408/409/429/5xx); ``retry_after`` is the server's requested wait in seconds, if any.
    """

    def __init__(self, message: str, *, retryable: bool, status: int | None = None,
                 retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


@frozen
class Endpoint:
    """Where the model lives. ``api_key`` is never printed or recorded."""

    base_url: str | None = None
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    retries: int = 2
    retry_backoff: float = 0.5

    def __attrs_post_init__(self):
        if self.retries < 0 or self.retries > 10:
            raise BadInput(f"retries must be between 0 and 10, got {self.retries}")
        if self.timeout <= 0:
            raise BadInput(f"timeout must be positive, got {self.timeout}")

    @classmethod
    def from_env(cls, base_url=None, model=None, api_key=None, **kwargs) -> Endpoint:
        """Explicit values first, then ``GEN09_BASE_URL`` / ``GEN09_MODEL`` / ``GEN09_API_KEY``."""
        return cls(base_url or os.environ.get(ENV_BASE_URL) or None,
                   model or os.environ.get(ENV_MODEL) or None,
                   api_key or os.environ.get(ENV_API_KEY) or None, **kwargs)


@frozen
class Price:
    """US dollars per million prompt and completion tokens."""

    prompt_per_mtok: float
    completion_per_mtok: float


@frozen
class PriceTable:
    """Model name → ``Price``. A model that is not listed has an unknown cost."""

    prices: dict = field(factory=dict)

    @classmethod
    def load(cls, path: str | None = None) -> PriceTable:
        """Read ``{"model": {"prompt_per_mtok": x, "completion_per_mtok": y}}`` from ``path``
        (default ``$GEN09_PRICES``); no file means an empty table (every cost unknown)."""
        path = path or os.environ.get(ENV_PRICES)
        if not path:
            return cls()
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            raise BadInput(f"price table {path}: {exc}") from None
        if not isinstance(data, dict):
            raise BadInput(f"price table {path}: expected an object of model → prices")
        prices = {}
        for model, entry in data.items():
            if not isinstance(entry, dict) or set(entry) != {"prompt_per_mtok", "completion_per_mtok"} \
                    or not all(isinstance(v, int | float) and v >= 0 for v in entry.values()):
                raise BadInput(f"price table {path}: {model!r} needs exactly non-negative "
                               "prompt_per_mtok and completion_per_mtok")
            prices[model] = Price(float(entry["prompt_per_mtok"]), float(entry["completion_per_mtok"]))
        return cls(prices)

    def cost(self, model: str | None, prompt_tokens: int | None, completion_tokens: int | None):
        """Cost in USD (rounded to 1e-8), or None when the model's price or a count is unknown."""
        price = self.prices.get(model)
        if price is None or prompt_tokens is None or completion_tokens is None:
            return None
        usd = (prompt_tokens * price.prompt_per_mtok + completion_tokens * price.completion_per_mtok) / 1e6
        return round(usd, 8)


@frozen
class CallRecord:
    """One metered model call (after its transport retries)."""

    role: str  # "generate" | "greedy_fallback"
    model: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: int
    attempts: int
    cost_usd: float | None
    ok: bool
    error: str | None = None

    def as_json(self) -> dict:
        """The record as printed in reports and summaries."""
        return {"role": self.role, "model": self.model, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "latency_ms": self.latency_ms,
                "attempts": self.attempts, "cost_usd": self.cost_usd, "ok": self.ok,
                "error": self.error}


def usage_summary(calls) -> dict:
    """Totals over calls; ``cost_usd`` is None (unknown) if any call's cost is unknown."""
    from gen09_core.totals import known_total

    calls = list(calls)
    cost = known_total(c.cost_usd for c in calls)
    return {"calls": len(calls), "prompt_tokens": known_total(c.prompt_tokens for c in calls),
            "completion_tokens": known_total(c.completion_tokens for c in calls),
            "latency_ms": sum(c.latency_ms for c in calls),
            "cost_usd": None if cost is None else round(cost, 8)}


def request_key(body: dict) -> str:
    """The identity of a request in a cassette: sha256 of its canonical JSON."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Cassette:
    """A JSONL file of recorded calls: one line per call with the request, the response body
    (or the final error), the usage, latency and attempts."""

    def __init__(self, path):
        self.path = Path(path)
        self._entries: list[dict] | None = None
        self._used: set[int] = set()

    def append(self, entry: dict) -> None:
        """Add one recorded call at the end of the file."""
        try:
            line = json.dumps(entry, sort_keys=True, ensure_ascii=False)
            line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate in an answer: keep it as an escape
            line = json.dumps(entry, sort_keys=True)
        try:
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        except OSError as exc:
            raise EnvironmentFailure(f"cassette {self.path}: {exc}") from None

    def entries(self) -> list[dict]:
        """All recorded calls, validated once; a damaged cassette is ``BadInput``."""
        if self._entries is None:
            try:
                text = self.path.read_bytes().decode("utf-8")
            except FileNotFoundError:
                raise BadInput(f"cassette {self.path}: no such file") from None
            except (OSError, UnicodeDecodeError) as exc:
                raise BadInput(f"cassette {self.path}: cannot read it ({exc})") from None
            entries = []
            for number, line in enumerate(text.split("\n"), 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except (ValueError, RecursionError) as exc:
                    raise BadInput(f"cassette {self.path} line {number}: {exc}") from None
                if not _is_record(entry):
                    raise BadInput(f"cassette {self.path} line {number}: not a version "
                                   f"{CASSETTE_VERSION} call record")
                entries.append(entry)
            self._entries = entries
        return self._entries

    def models(self) -> set:
        """The models the cassette's requests name."""
        return {e["request"].get("model") for e in self.entries()}

    def take(self, key: str) -> dict:
        """The first unused recording of the request with ``key``."""
        for index, entry in enumerate(self.entries()):
            if index not in self._used and entry["key"] == key:
                self._used.add(index)
                return entry
        raise BadInput(f"cassette {self.path} has no unused recording of this request "
                       f"(key {key[:12]}); the intent, settings or model differ from the recorded run")


@frozen
class Reply:
    """What ``complete`` returns: the response body and the metered record."""

    body: dict
    record: CallRecord


class ModelClient:
    """The one metered model client. Live (through a ``Generator``) or replaying a cassette."""

    def __init__(self, endpoint: Endpoint, generator: Generator | None = None,
                 prices: PriceTable | None = None, record=None, replay=None, sleep=time.sleep):
        if replay is None and generator is None:
            raise BadInput("no generator plugin is active, and no --replay cassette was given")
        self.endpoint = endpoint
        self.generator = generator
        self.prices = prices or PriceTable()
        self.recorder = Cassette(record) if record else None
        self.replayer = Cassette(replay) if replay else None
        self.calls: list[CallRecord] = []
        self._sleep = sleep

    def complete(self, role: str, body: dict) -> Reply:
        """Make one metered call with request ``body``; only inside ``generator_scope()``.

        Transport failures are retried up to ``endpoint.retries`` times with the same body;
        when they persist, the call is metered and ``EnvironmentFailure`` names the cause.
        """
        require_scope()
        key = request_key(body)
        if self.replayer is not None:
            return self._replay(role, body, key)
        prepare = getattr(self.generator, "prepare", None)
        if prepare is not None:  # imports and connection setup are not the model's latency
            prepare(self.endpoint)
        attempts, started = 0, time.perf_counter()
        while True:
            attempts += 1
            _ATTEMPTS["count"] += 1
            try:
                response = self.generator.complete(body, self.endpoint)
                break
            except TransportError as exc:
                if exc.retryable and attempts <= self.endpoint.retries:
                    self._sleep(self._delay(exc, attempts))
                    continue
                latency = _ms(started)
                message = (f"model endpoint {self.endpoint.base_url}: {exc} "
                           f"(after {attempts} attempt{'s' if attempts > 1 else ''}; "
                           f"{'retries exhausted' if exc.retryable else 'not retryable'})")
                self._finish(role, body, key, None, latency, attempts, message)
                raise EnvironmentFailure(message) from None
        return self._finish(role, body, key, response, _ms(started), attempts, None)

    def _delay(self, exc: TransportError, attempts: int) -> float:
        if exc.retry_after is not None and 0 <= exc.retry_after <= MAX_RETRY_AFTER:
            return exc.retry_after
        return self.endpoint.retry_backoff * 2 ** (attempts - 1)

    def _finish(self, role, body, key, response, latency, attempts, error) -> Reply:
        usage = (response or {}).get("usage") or {}
        prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
        model = body.get("model")
        record = CallRecord(role, model, prompt, completion, latency, attempts,
                            self.prices.cost(model, prompt, completion), error is None, error)
        self.calls.append(record)
        if self.recorder is not None:
            self.recorder.append({
                "version": CASSETTE_VERSION, "role": role, "key": key, "request": body,
                "response": response, "error": error, "latency_ms": latency, "attempts": attempts,
            })
        return Reply(response, record)

    def _replay(self, role, body, key) -> Reply:
        _ATTEMPTS["count"] += 1
        entry = self.replayer.take(key)
        if entry.get("error"):
            self._finish(role, body, key, None, entry["latency_ms"], entry["attempts"], entry["error"])
            raise EnvironmentFailure(entry["error"] + " [replayed]")
        return self._finish(role, body, key, entry["response"], entry["latency_ms"],
                            entry["attempts"], None)


def _is_record(entry) -> bool:
    """A call record as ``ModelClient`` writes it: the fields replay reads, well typed."""
    return (isinstance(entry, dict) and entry.get("version") == CASSETTE_VERSION
            and isinstance(entry.get("key"), str) and isinstance(entry.get("request"), dict)
            and isinstance(entry.get("response"), dict | None)
            and isinstance(entry.get("error"), str | None)
            and (entry.get("response") is not None or entry.get("error") is not None)
            and _count(entry.get("latency_ms")) is not None and _count(entry.get("attempts")) is not None)


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _ms(started: float) -> int:
    return int(round((time.perf_counter() - started) * 1000))
