"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests.

Each request to ``POST /v1/chat/completions`` takes the next scripted reply: a tool call
(``Reply(tool=name, arguments={...})``), plain content (``Reply(content="...")``), an HTTP
error (``Reply(status=500)``) or a delay before answering (``Reply(delay_s=2, ...)``). The
real ``openai`` client (through ``langchain-openai``) talks to it over HTTP, so the whole
client path — serialisation, tool-call parsing, timeouts, status errors — is exercised.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    content: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] | str | None = None
    status: int = 200
    delay_s: float = 0.0


@dataclass
class OpenAIStub:
    """The running server: its base URL, the replies still queued and the requests seen."""

    base_url: str
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    finish = "stop"
    if reply.tool is not None:
        arguments = reply.arguments
        message["tool_calls"] = [
            {
                "id": "call_0",
                "type": "function",
                "function": {
                    "name": reply.tool,
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
        ]
        finish = "tool_calls"
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def start_stub() -> tuple[OpenAIStub, ThreadingHTTPServer]:
    """Start the server on a free port; stop it with ``server.shutdown()``."""
    stub = OpenAIStub(base_url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            stub.requests.append(body)
            reply = stub.replies.popleft() if stub.replies else Reply(status=503)
            time.sleep(reply.delay_s)
            payload = (
                _completion(reply, body.get("model", "stub"))
                if reply.status == 200
                else {"error": {"message": "scripted failure", "type": "server_error"}}
            )
            data = json.dumps(payload).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    stub.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return stub, server
