"""LangMem's memory tools on the factgraph store, called directly (no LLM): what an agent's
tool calls do to its memory, and that factgraph keeps the history of an updated memory."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator

import pytest
from langmem import create_manage_memory_tool, create_search_memory_tool

from factgraph_client import AsyncClient, Client
from factgraph_client.langgraph import AsyncFactgraphStore, FactgraphStore

NAMESPACE = ("memories", "user-1")
PARTITION = '["memories","user-1"]'


@pytest.fixture
def client(server_url: str, scope: str) -> Iterator[Client]:
    with Client(server_url, scope=scope, timeout=300) as fg:
        yield fg


def created_id(answer: object) -> str:
    found = re.search(r"memory ([0-9a-f-]{36})", str(answer))
    assert found, answer
    return found.group(1)


def test_manage_and_search_tools_create_update_delete_and_find(client: Client) -> None:
    store = FactgraphStore(client)
    manage = create_manage_memory_tool(namespace=NAMESPACE, store=store)
    search = create_search_memory_tool(namespace=NAMESPACE, store=store)

    tea = created_id(manage.invoke({"content": "The user prefers green tea in the morning"}))
    bike = created_id(manage.invoke({"content": "The user rides a red bicycle to work"}))
    assert store.get(NAMESPACE, tea).value == {  # type: ignore[union-attr]
        "content": "The user prefers green tea in the morning"
    }

    # Both memories share "user", whose full-text score depends on what else the index holds
    # (Lucene's term statistics count every document, deleted ones until a merge): "what does
    # the user drink?" put the shorter bicycle memory first in one run. "morning" is the tea's.
    found = json.loads(search.invoke({"query": "what does the user drink in the morning?"}))
    assert found[0]["key"] == tea
    assert found[0]["value"] == {"content": "The user prefers green tea in the morning"}
    assert found[0]["namespace"] == list(NAMESPACE)

    answer = manage.invoke(
        {
            "content": "The user now prefers black coffee in the morning",
            "action": "update",
            "id": tea,
        }
    )
    assert answer == f"updated memory {tea}"
    assert store.get(NAMESPACE, tea).value == {  # type: ignore[union-attr]
        "content": "The user now prefers black coffee in the morning"
    }
    # The update superseded the memory; factgraph still tells what it was before.
    live = [f for f in client.timeline(partition=PARTITION).items if f.subject == tea]
    assert len(live) == 1
    chain = client.history(live[0].id)
    assert [f.metadata["langgraph"]["value"]["content"] for f in chain] == [
        "The user prefers green tea in the morning",
        "The user now prefers black coffee in the morning",
    ]
    assert [f.status for f in chain] == ["superseded", "active"]

    assert manage.invoke({"action": "delete", "id": bike}) == f"Deleted memory {bike}"
    assert store.get(NAMESPACE, bike) is None
    remaining = json.loads(search.invoke({"query": "bicycle"}))
    assert [m["key"] for m in remaining] == [tea]
    assert client.history(chain[-1].id)[-1].status == "active"


def test_the_tools_async_path_on_the_async_store(server_url: str, scope: str) -> None:
    async def run() -> None:
        async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
            store = AsyncFactgraphStore(fg)
            manage = create_manage_memory_tool(namespace=NAMESPACE, store=store)
            search = create_search_memory_tool(namespace=NAMESPACE, store=store)
            key = created_id(await manage.ainvoke({"content": "The user's cat is called Miso"}))
            found = json.loads(await search.ainvoke({"query": "pet name"}))
            assert [m["key"] for m in found] == [key]
            await manage.ainvoke({"action": "delete", "id": key})
            assert json.loads(await search.ainvoke({"query": "pet name"})) == []

    asyncio.run(run())
