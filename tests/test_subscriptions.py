"""Live updates: GraphQL subscriptions over graphql-transport-ws, against the real service.

A real WebSocket client (the `websockets` package) subscribes; writes go through GraphQL over
HTTP or through `Memory`; the events arrive on the socket. Keys and roles apply as to
queries, and a subscriber that does not keep up loses events (and is told) without ever
holding up a write.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.typing import Subprotocol

from graph.auth.apikeys import KeyStore
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage.db import Database
from graph.write.events import EventBus
from resolvers.app import create_app
from tests.conftest import lives_in
from tests.live_server import serve

PROTOCOL = Subprotocol("graphql-transport-ws")
SCOPE_EVENTS = """
subscription($scope: String!) {
  scopeEvents(scope: $scope) {
    __typename
    ... on FactChange { action decision factId matchedId reason actor queue fact { text status } }
    ... on EventsDropped { count }
  }
}"""
REVIEW_EVENTS = """
subscription($scope: String!) {
  reviewQueueEvents(scope: $scope) {
    __typename
    ... on FactChange { action factId queue }
    ... on EventsDropped { count }
  }
}"""
REMEMBER = """
mutation($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { kind fact { id } }
}"""


class Socket:
    """One graphql-transport-ws connection."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)

    async def subscribe(self, query: str, **variables: object) -> str:
        op = str(next(self.ids))
        payload = {"query": query, "variables": variables}
        await self.ws.send(json.dumps({"id": op, "type": "subscribe", "payload": payload}))
        return op

    async def message(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(await self.ws.recv())
            if message["type"] != "ping":
                return message
            await self.ws.send(json.dumps({"type": "pong"}))

    async def event(self) -> dict[str, Any]:
        """The payload of the next `next` message, for a test's single subscription."""
        message = await self.message()
        assert message["type"] == "next", message
        assert not message["payload"].get("errors"), message
        data: dict[str, Any] = message["payload"]["data"]
        return next(iter(data.values()))


@asynccontextmanager
async def socket(
    base: str,
    init: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    origin: str | None = None,
) -> AsyncIterator[Socket]:
    url = base.replace("http://", "ws://") + "/graphql"
    async with connect(
        url,
        subprotocols=[PROTOCOL],
        additional_headers=headers,
        origin=origin,  # type: ignore[arg-type]
    ) as ws:
        await ws.send(json.dumps({"type": "connection_init", "payload": init or {}}))
        ack = json.loads(await ws.recv())
        assert ack["type"] == "connection_ack", ack
        yield Socket(ws)


async def live(memory: Memory, scope: str, count: int = 1) -> None:
    """Wait until `count` subscriptions of `scope` are registered (the protocol sends no
    acknowledgement of a subscribe)."""
    while memory.events.subscribers(scope) < count:
        await asyncio.sleep(0.01)


@asynccontextmanager
async def subscribed(
    base: str, memory: Memory, scope: str, query: str = SCOPE_EVENTS
) -> AsyncIterator[Socket]:
    """A socket whose one subscription to `scope` the server has registered."""
    async with socket(base) as ws:
        await ws.subscribe(query, scope=scope)
        await live(memory, scope)
        yield ws


async def post(base: str, query: str, **variables: object) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as client:
        response = await client.post("/graphql", json={"query": query, "variables": variables})
    body: dict[str, Any] = response.json()
    assert not body.get("errors"), body
    return body


def test_a_subscriber_sees_each_write_with_its_decision(
    server_url: str, memory: Memory, scope: str
) -> None:
    async def journey() -> list[dict[str, Any]]:
        async with subscribed(server_url, memory, scope) as ws:
            body = await post(server_url, REMEMBER, scope=scope, fact=lives_in("London", who="Ada"))
            first = body["data"]["remember"]["fact"]["id"]
            await asyncio.to_thread(memory.remember, scope, lives_in("Paris", who="Ada"))
            seen = [await ws.event(), await ws.event()]
            second = seen[1]["factId"]
            await asyncio.to_thread(memory.forget, scope, second, reason="moved again")
            await asyncio.to_thread(memory.purge, scope, first, reason="gdpr")
            seen += [await ws.event(), await ws.event()]
            return seen

    inserted, superseding, forgotten, purged = asyncio.run(journey())
    while memory.events.subscribers(scope):  # the server ends it once it sees the close
        time.sleep(0.01)

    assert (inserted["action"], inserted["decision"]) == ("REMEMBER", "INSERT")
    assert inserted["fact"] == {"text": "Ada lives in London", "status": "ACTIVE"}
    assert inserted["actor"] == "graphql"
    assert (superseding["action"], superseding["decision"]) == ("REMEMBER", "SUPERSEDE")
    assert superseding["matchedId"] == inserted["factId"]
    assert (forgotten["action"], forgotten["reason"]) == ("FORGET", "moved again")
    assert forgotten["fact"]["status"] == "FORGOTTEN"
    assert (purged["action"], purged["factId"], purged["fact"]) == (
        "PURGE",
        inserted["factId"],
        None,
    )


def test_a_batch_write_reaches_subscribers_as_its_writes_in_input_order(
    server_url: str, memory: Memory, scope: str
) -> None:
    async def journey() -> list[dict[str, Any]]:
        async with subscribed(server_url, memory, scope) as ws:
            batch = [lives_in("Oslo"), lives_in("Oslo"), lives_in("Rome")]
            await asyncio.to_thread(memory.remember_many, scope, batch)
            return [await ws.event() for _ in batch]

    seen = asyncio.run(journey())
    while memory.events.subscribers(scope):
        time.sleep(0.01)

    assert [(event["action"], event["decision"]) for event in seen] == [
        ("REMEMBER", "INSERT"),
        ("REMEMBER", "DEDUP"),
        ("REMEMBER", "SUPERSEDE"),
    ]
    assert seen[2]["matchedId"] == seen[0]["factId"]


def test_the_review_queue_stream_shows_facts_entering_and_leaving_it(
    server_url: str, memory: Memory, scope: str
) -> None:
    async def journey() -> list[dict[str, Any]]:
        async with subscribed(server_url, memory, scope, REVIEW_EVENTS) as ws:

            def writes() -> None:
                memory.remember(scope, {"text": "Bob likes jazz"})  # trusted: not queued
                held = memory.remember(scope, {"text": "Bob is a spy", "source": "web"})
                memory.validate(scope, held.id, reason="checked")
                other = memory.remember(scope, {"text": "Bob owns a moon", "source": "web"})
                memory.reject(scope, other.id, reason="nonsense")

            await asyncio.to_thread(writes)
            return [await ws.event() for _ in range(4)]

    events = asyncio.run(journey())

    assert [(e["action"], e["queue"]) for e in events] == [
        ("REMEMBER", "ENTERED"),
        ("VALIDATE", "LEFT"),
        ("REMEMBER", "ENTERED"),
        ("REJECT", "LEFT"),
    ]
    assert events[0]["factId"] == events[1]["factId"] != events[2]["factId"]


def test_queries_and_mutations_belong_to_http_not_the_socket(server_url: str) -> None:
    async def ask() -> dict[str, Any]:
        async with socket(server_url) as ws:
            await ws.subscribe("{ health { ok } }")
            return await ws.message()

    answer = asyncio.run(ask())

    assert answer["type"] == "error"
    assert "HTTP POST" in answer["payload"][0]["message"]


def test_a_browser_socket_from_a_foreign_origin_is_refused(server_url: str) -> None:
    async def attempt(origin: str) -> None:
        async with socket(server_url, origin=origin):
            pass

    asyncio.run(attempt(server_url))  # the service's own pages (the console) may
    with pytest.raises(InvalidStatus) as refused:
        asyncio.run(attempt("http://evil.example"))
    assert refused.value.response.status_code == 403


# -- a subscriber that does not keep up ------------------------------------------------------
@pytest.fixture
def small_queues(db: Database, embedder: Embedder) -> Iterator[tuple[Memory, str]]:
    """A service whose subscribers may have 2 events waiting (the default is 256)."""
    memory = Memory(db, embedder)
    memory.events = EventBus(queue_size=2)
    with serve(create_app(memory=memory)) as url:
        yield memory, url


def test_a_stalled_subscriber_loses_events_and_is_told_but_never_holds_up_a_write(
    small_queues: tuple[Memory, str], scope: str
) -> None:
    memory, url = small_queues
    stalled, release = threading.Event(), threading.Event()
    written: list[str] = []

    def stall() -> None:
        stalled.set()
        release.wait()

    async def journey() -> list[dict[str, Any]]:
        async with subscribed(url, memory, scope) as ws:
            # Stall the subscriber: the server's event loop, which would read its queue and
            # send on the socket, is held until the writes are done.
            (subscription,) = memory.events.subscriptions(scope)
            subscription.loop.call_soon_threadsafe(stall)

            def writes() -> None:
                stalled.wait()
                for n in range(6):
                    written.append(memory.remember(scope, {"text": f"note number {n}"}).id)
                release.set()

            await asyncio.to_thread(writes)
            seen = [await ws.event() for _ in range(3)]
            await asyncio.to_thread(memory.remember, scope, {"text": "note after the gap"})
            seen.append(await ws.event())
            return seen

    seen = asyncio.run(journey())

    assert len(written) == 6, "every write completed while the subscriber was stalled"
    assert [e.get("factId") for e in seen[:2]] == written[:2]
    assert seen[2] == {"__typename": "EventsDropped", "count": 4}
    assert seen[3]["fact"]["text"] == "note after the gap"


# -- keys and roles --------------------------------------------------------------------------
@pytest.fixture
def keys(secured: tuple[Starlette, str]) -> Iterator[KeyStore]:
    store: KeyStore = secured[0].state.gate.keys
    before = {k.id for k in store.list()}
    yield store
    for key in store.list():
        if key.id not in before:
            store.delete(key.id)


def test_a_wrong_or_missing_key_closes_the_socket(
    secured: tuple[Starlette, str], keys: KeyStore
) -> None:
    url = secured[1]

    async def attempt(init: dict[str, Any]) -> int | None:
        try:
            async with socket(url, init=init):
                return None
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None

    assert asyncio.run(attempt({"Authorization": "Bearer fg_not_a_key"})) == 4403
    assert asyncio.run(attempt({})) == 4403


def test_a_reader_key_follows_its_scope_but_not_the_review_queue_or_other_scopes(
    secured: tuple[Starlette, str],
    keys: KeyStore,
    memory: Memory,
    scope: str,
    other_scope: str,
) -> None:
    url = secured[1]
    _, reader = keys.create([scope], "reader")

    async def journey() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        async with socket(url, init={"apiKey": reader}) as ws:
            await ws.subscribe(REVIEW_EVENTS, scope=scope)
            queue = await ws.message()
            await ws.subscribe(SCOPE_EVENTS, scope=other_scope)
            other = await ws.message()
            await ws.subscribe(SCOPE_EVENTS, scope=scope)
            await live(memory, scope)

            def writes() -> None:
                memory.remember(scope, {"text": "Cy said it on a forum", "source": "web"})
                memory.remember(scope, {"text": "Cy plays chess"})

            await asyncio.to_thread(writes)
            return [await ws.event()], queue, other

    seen, queue, other = asyncio.run(journey())

    assert queue["type"] in ("next", "error")
    assert "FORBIDDEN" in json.dumps(queue["payload"]), queue
    assert "FORBIDDEN" in json.dumps(other["payload"]), other
    assert seen[0]["fact"]["text"] == "Cy plays chess", "held facts reach admins only"


def test_an_admin_key_in_the_upgrade_header_follows_the_review_queue(
    secured: tuple[Starlette, str], keys: KeyStore, memory: Memory, scope: str
) -> None:
    url = secured[1]
    _, admin = keys.create([scope], "admin")

    async def journey() -> dict[str, Any]:
        async with socket(url, headers={"Authorization": f"Bearer {admin}"}) as ws:
            await ws.subscribe(REVIEW_EVENTS, scope=scope)
            await live(memory, scope)
            await asyncio.to_thread(
                memory.remember, scope, {"text": "Dee won a prize", "source": "email"}
            )
            return await ws.event()

    event = asyncio.run(journey())

    assert (event["action"], event["queue"]) == ("REMEMBER", "ENTERED")


def test_a_subscription_sent_over_http_is_refused_in_words(http: httpx.Client) -> None:
    for accept in ("application/json", "multipart/mixed;subscriptionSpec=1.0,application/json"):
        response = http.post(
            "/graphql",
            json={"query": SCOPE_EVENTS, "variables": {"scope": "anything"}},
            headers={"Accept": accept},
        )

        assert response.status_code == 400
        assert "WebSocket" in response.text and "graphql-transport-ws" in response.text
