"""A loopback HTTP server that speaks the OpenAI chat-completions protocol, for tests.

Each POST to ``/v1/chat/completions`` takes the next scripted ``Reply`` (or the default one)
and records the request (path, headers, JSON body). Replies can be a completion, an error
status, a non-JSON body, or a stall (for client timeouts: the handler waits until the test
ends, without a fixed sleep).
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Reply:
    """One scripted answer."""

    status: int = 200
    body: object = None  # dict → JSON; str → raw text
    headers: dict = field(default_factory=dict)
    stall: bool = False


def completion(*contents, model="test-model", usage=(120, 80), finish_reason="stop") -> dict:
    """A chat-completions response body with one choice per content string."""
    body = {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000, "model": model,
        "choices": [{"index": k, "finish_reason": finish_reason,
                     "message": {"role": "assistant", "content": c}} for k, c in enumerate(contents)],
    }
    if usage is not None:
        body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                         "total_tokens": usage[0] + usage[1]}
    return body


def candidates_content(*pairs) -> str:
    """The JSON content ``{"candidates": [{"search", "replace"}, ...]}``."""
    return json.dumps({"candidates": [{"search": s, "replace": r} for s, r in pairs]})


class ChatServer:
    """Start with ``with ChatServer() as server``; ``server.url`` is the base URL."""

    def __init__(self):
        self.script: deque[Reply] = deque()
        self.default: Reply | None = None
        self.requests: list[dict] = []
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                outer.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
                reply = outer.script.popleft() if outer.script else outer.default
                if reply is None:
                    reply = Reply(500, {"error": {"message": "no scripted reply"}})
                if reply.stall:
                    outer.release.wait(30)
                    return
                data = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
                payload = data.encode("utf-8")
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def push(self, *replies: Reply) -> ChatServer:
        """Queue replies, answered in order."""
        self.script.extend(replies)
        return self

    @property
    def bodies(self) -> list[dict]:
        """The JSON bodies of every request received so far."""
        return [r["body"] for r in self.requests]

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.release.is_set():
            return
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
