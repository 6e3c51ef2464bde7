"""Streams never take request slots: with a hundred idle MCP event streams open the API answers
as if none were, a client past its bound of streams (or the service past its total) is refused
with TOO_MANY_STREAMS and Retry-After, and an idle stream is closed. A real uvicorn on loopback,
real Neo4j, real model."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from graph.memory import Memory
from resolvers.app import create_app
from tests.live_server import serve

HEALTH = {"query": "{ health { ok } }"}


@contextmanager
def service(memory: Memory, **settings: int) -> Iterator[str]:
    tuned = memory.settings.with_overrides(**settings)
    with serve(create_app(memory=memory, settings=tuned)) as url:
        yield url


def open_stream(url: str, scope: str, key: str | None = None) -> tuple[socket.socket, bytes]:
    """`GET /mcp` with `Accept: text/event-stream` on a raw socket, as an MCP client opens its
    event stream; returns the socket (left open) and the response head."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    extra = f"X-API-Key: {key}\r\n" if key else ""
    sock.sendall(
        f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
        f"X-Scope: {scope}\r\n{extra}\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, f"the stream closed before its head: {head!r}"
        head += chunk
    return sock, head


def status_of(head: bytes) -> int:
    return int(head.split(b" ", 2)[1])


def test_a_hundred_idle_streams_leave_every_request_slot_free(memory: Memory, scope: str) -> None:
    with (
        service(memory, max_queue=2, max_streams=150, max_streams_per_client=120) as url,
        ExitStack() as streams,
        httpx.Client(base_url=url, timeout=120) as client,
    ):
        search = {"query": "chess"}
        # Once before: the first search of a process loads what it needs (a minute, cold).
        assert client.post("/api/v1/search", headers={"X-Scope": scope}, json=search).is_success
        for _ in range(100):
            sock, head = open_stream(url, scope)
            streams.callback(sock.close)
            assert status_of(head) == 200 and b"text/event-stream" in head.lower(), head
        metrics_page = client.get("/metrics").text
        answers = [
            client.post("/graphql", json=HEALTH),
            client.post("/api/v1/search", headers={"X-Scope": scope}, json=search),
            client.post(
                "/mcp",
                headers={"X-Scope": scope, "Accept": "application/json, text/event-stream"},
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            ),
        ]
    assert "factgraph_streams_open 100.0" in metrics_page
    assert "factgraph_http_admitted_requests 0.0" in metrics_page
    assert [a.status_code for a in answers] == [200, 200, 200], [a.text[:200] for a in answers]


def test_streams_past_a_clients_bound_or_the_total_are_refused_with_a_code(
    memory: Memory, scope: str
) -> None:
    with service(memory, max_streams=3, max_streams_per_client=2, retry_after=4) as url:
        first, _ = open_stream(url, scope)
        second, _ = open_stream(url, scope)
        third, own_bound = open_stream(url, scope)
        other, other_head = open_stream(url, scope, key="another-client")
        last, total_bound = open_stream(url, scope, key="a-third-client")
        for sock in (first, second, third, other, last):
            sock.close()
    assert status_of(own_bound) == 429, own_bound
    assert b"retry-after: 4" in own_bound.lower()
    assert status_of(other_head) == 200, "another client's bound is its own"
    assert status_of(total_bound) == 503, total_bound
    assert b"retry-after: 4" in total_bound.lower()
    body = json.loads(own_bound.split(b"\r\n\r\n", 1)[1])
    assert body["error"]["code"] == "TOO_MANY_STREAMS"
    assert "FACTGRAPH_MAX_STREAMS_PER_CLIENT" in body["error"]["message"]


def test_an_idle_stream_is_closed_and_its_place_freed(memory: Memory, scope: str) -> None:
    with service(memory, max_streams_per_client=1, stream_idle_timeout=1) as url:
        sock, head = open_stream(url, scope)
        opened = time.monotonic()
        assert status_of(head) == 200
        sock.settimeout(10)
        body = head.split(b"\r\n\r\n", 1)[1]
        while not body.endswith(b"0\r\n\r\n"):  # the chunked body's last chunk: it ended
            chunk = sock.recv(4096)
            assert chunk, "the connection closed without ending the stream"
            body += chunk
        closed_after = time.monotonic() - opened
        sock.close()
        again, again_head = open_stream(url, scope)
        again.close()
    assert 0.9 <= closed_after < 5, closed_after
    assert status_of(again_head) == 200, "a closed stream's place is free again"


def test_websockets_count_as_streams(memory: Memory) -> None:
    protocol = [Subprotocol("graphql-transport-ws")]

    async def run(ws_url: str) -> int:
        async with connect(ws_url, subprotocols=protocol) as held:
            await held.send(json.dumps({"type": "connection_init"}))
            assert json.loads(await held.recv())["type"] == "connection_ack"
            with pytest.raises(InvalidStatus) as refused:
                async with connect(ws_url, subprotocols=protocol):
                    pass
            return refused.value.response.status_code

    with service(memory, max_streams_per_client=1) as url:
        status = asyncio.run(run(url.replace("http://", "ws://") + "/graphql"))
    assert status == 429
