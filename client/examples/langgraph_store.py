"""A LangGraph graph whose node writes and reads long-term memory in factgraph, then LangMem's
tools on the same store. Needs a running service (`make run`, or FACTGRAPH_URL) and
`pip install './client[langmem]'`. No LLM: the node and the tool calls are plain code.

    FACTGRAPH_URL=http://127.0.0.1:8000 python client/examples/langgraph_store.py
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

from langgraph.graph import START, MessagesState, StateGraph
from langgraph.store.base import BaseStore
from langmem import create_manage_memory_tool, create_search_memory_tool

from factgraph_client import Client
from factgraph_client.langgraph import FactgraphStore


def main() -> None:
    url = os.environ.get("FACTGRAPH_URL", "http://127.0.0.1:8000")
    scope = os.environ.get("FACTGRAPH_SCOPE", f"example-{uuid.uuid4().hex[:8]}")
    with Client(url, scope=scope, api_key=os.environ.get("FACTGRAPH_API_KEY")) as client:
        store = FactgraphStore(client)
        namespace = ("users", "alice")

        def remember_and_recall(state: MessagesState, *, store: BaseStore) -> dict[str, Any]:
            said = str(state["messages"][-1].content)
            store.put(namespace, "drink", {"text": said})
            hits = store.search(namespace, query="what does Alice drink?", limit=1)
            return {"messages": [("ai", f"I remember: {hits[0].value['text']}")]}

        builder = StateGraph(MessagesState)
        builder.add_node("remember_and_recall", remember_and_recall)
        builder.add_edge(START, "remember_and_recall")
        graph = builder.compile(store=store)

        for said in ["Alice prefers green tea", "Alice switched to black coffee"]:
            out = graph.invoke({"messages": [("user", said)]})
            print("graph:", out["messages"][-1].content)

        item = store.get(namespace, "drink")
        assert item is not None
        print("get:", item.value, "created", item.created_at, "updated", item.updated_at)
        live = client.graphql(
            "query($s: String!, $p: String!, $k: [String!]!) "
            "{ factsByKey(scope: $s, partition: $p, keys: $k) { id } }",
            {"s": scope, "p": '["users","alice"]', "k": ["drink"]},
        )["factsByKey"][0]["id"]
        for version in client.history(live):
            print("history:", version.status, version.metadata["langgraph"]["value"])

        manage = create_manage_memory_tool(namespace=("memories", "alice"), store=store)
        search = create_search_memory_tool(namespace=("memories", "alice"), store=store)
        created = manage.invoke({"content": "Alice is allergic to peanuts"})
        print("langmem manage:", created)
        found = json.loads(search.invoke({"query": "food allergy"}))
        print("langmem search:", [(m["key"], m["value"], round(m["score"], 3)) for m in found])
        print("namespaces:", store.list_namespaces())


if __name__ == "__main__":
    main()
