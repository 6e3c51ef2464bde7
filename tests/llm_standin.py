"""A local stand-in for an OpenAI-compatible chat-completions server, on loopback.

Each test scripts the answers (content, a status, a delay, or a raw malformed body) and reads
back what was asked, so the real HTTP client is exercised without any paid or remote model.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None


@dataclass
class StandIn:
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    default: Reply = field(default_factory=lambda: Reply(status=500))

    def script(self, *replies: Reply) -> None:
        self.replies.extend(replies)


def serve() -> tuple[ThreadingHTTPServer, StandIn, str]:
    state = StandIn()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(
                {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
            )
            reply = state.replies.popleft() if state.replies else state.default
            if reply.delay:
                time.sleep(reply.delay)
            if reply.raw is not None:
                payload = reply.raw
            else:
                payload = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": reply.content}}]}
                ).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout tests)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, state, f"http://127.0.0.1:{server.server_address[1]}/v1"
