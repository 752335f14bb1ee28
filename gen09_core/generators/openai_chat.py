"""The built-in generator: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM,
SGLang, Ollama, DeepSeek, OpenRouter) through the ``openai`` SDK.

Registered as entry point ``openai``. The SDK is imported on first use, never at load time,
so commands that make no model call (``gen09 apply``) do not pay for it. The SDK's own
retries are off: ``gen09_core.llm.ModelClient`` owns the bounded retry policy and meters
every attempt.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from gen09_core import hookimpl

if TYPE_CHECKING:
    from gen09_core.llm import Endpoint

NO_KEY = "no-key"  # local servers (vLLM, Ollama) accept any key; the SDK insists on one
RETRYABLE_STATUS = frozenset({408, 409, 429})


class OpenAIChatGenerator:
    """Sends chat-completions bodies with the ``openai`` SDK and returns the raw JSON body."""

    name = "openai"

    def __init__(self):
        self._clients: dict = {}

    def complete(self, body: dict, endpoint: Endpoint) -> dict:
        """One HTTP request (no SDK retries); failures become ``TransportError``."""
        from gen09_core.llm import TransportError, require_scope

        require_scope("the openai generator")
        import openai

        client = self._client(endpoint)
        try:
            raw = client.chat.completions.with_raw_response.create(**body)
        except openai.APITimeoutError:
            raise TransportError(f"timed out after {endpoint.timeout:g} s", retryable=True) from None
        except openai.APIConnectionError as exc:
            raise TransportError(f"connection failed: {exc.__cause__ or exc}", retryable=True) from None
        except openai.APIStatusError as exc:
            status = exc.status_code
            kind = "rate limited" if status == 429 else "server error" if status >= 500 else "refused"
            raise TransportError(
                f"{kind} (HTTP {status}): {_server_message(exc)}",
                retryable=status in RETRYABLE_STATUS or status >= 500, status=status,
                retry_after=_retry_after(exc.response.headers),
            ) from None
        try:
            data = json.loads(raw.http_response.text)
        except ValueError:
            raise TransportError("the response body is not JSON", retryable=False) from None
        if not isinstance(data, dict):
            raise TransportError("the response body is not a JSON object", retryable=False)
        return data

    def prepare(self, endpoint: Endpoint) -> None:
        """Import the SDK and build its client before the latency clock starts."""
        from gen09_core.llm import require_scope

        require_scope("the openai generator")
        self._client(endpoint)

    def _client(self, endpoint: Endpoint):
        import openai

        key = (endpoint.base_url, endpoint.api_key, endpoint.timeout)
        if key not in self._clients:
            self._clients[key] = openai.OpenAI(
                base_url=endpoint.base_url, api_key=endpoint.api_key or NO_KEY,
                timeout=endpoint.timeout, max_retries=0,
            )
        return self._clients[key]


def _server_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return str(getattr(exc, "message", "") or exc)[:300]


def _retry_after(headers) -> float | None:
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name) if headers is not None else None
        if value is None:
            continue
        try:
            return float(value) / scale
        except ValueError:
            continue
    return None


@hookimpl
def gen09_generator():
    """The OpenAI-compatible chat-completions generator."""
    return OpenAIChatGenerator()
