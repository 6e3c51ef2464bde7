"""mem0's 1.x Python client (the line LlamaIndex's mem0 memory pins), run in a virtualenv of its
own by tests/test_mem0_other_clients.py: `python python_v1.py URL KEY USER`. It makes the
calls a 1.x user makes, ids at the top level as that client takes them, and prints what it saw
as one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from mem0 import AsyncMemoryClient, MemoryClient


def error(call: Any) -> list[Any]:
    """The exception a call raised (its class, and the field factgraph named), or []."""
    try:
        call()
    except Exception as exc:
        details = getattr(exc, "details", None) or {}
        return [type(exc).__name__, details.get("error", {}).get("field")]
    return []


def main(url: str, key: str, user: str) -> dict[str, Any]:
    client = MemoryClient(api_key=key, host=url)
    out: dict[str, Any] = {"org_id": client.org_id, "project_id": client.project_id}
    added = client.add(
        [
            {"role": "user", "content": "I am vegetarian"},
            {"role": "user", "content": "I live in Oslo"},
        ],
        user_id=user,
        metadata={"src": "v1"},
        infer=False,
    )
    out["add_events"] = [r["event"] for r in added["results"]]
    vegetarian, oslo = (r["id"] for r in added["results"])
    client.add("Prefers email over calls", user_id=user, agent_id="helper", infer=False)
    found = client.search("what does the user eat?", user_id=user)
    out["search_top"] = found["results"][0]["memory"]
    narrowed = client.search(
        "contact", filters={"AND": [{"user_id": user}, {"agent_id": "*"}]}, version="v2"
    )
    out["search_filtered"] = [r["memory"] for r in narrowed["results"]]
    out["list"] = sorted(r["memory"] for r in client.get_all(user_id=user)["results"])
    out["paged_count"] = client.get_all(filters={"user_id": user}, page=1, page_size=2)["count"]
    out["get"] = client.get(vegetarian)["memory"]
    bergen = client.update(memory_id=oslo, text="I live in Bergen")
    out["updated"] = bergen["memory"]
    out["updated_keeps_id"] = bergen["id"] == oslo and client.get(oslo)["id"] == oslo
    out["history"] = [h["event"] for h in client.history(oslo) if h["memory_id"] == oslo]
    out["users"] = sorted([e["type"], e["name"]] for e in client.users()["results"])
    out["bad_filter"] = error(
        lambda: client.search("x", filters={"user_id": user, "mood": "happy"})
    )
    out["bad_add"] = error(lambda: client.add("no owner"))
    client.delete(vegetarian)
    out["deleted_get"] = error(lambda: client.get(vegetarian))
    out["delete_all"] = client.delete_all(user_id=user)
    out["after"] = client.get_all(user_id=user)["results"]

    async def later() -> list[str]:
        async with AsyncMemoryClient(api_key=key, host=url) as aclient:
            await aclient.add("Rides a red bicycle", user_id=user, infer=False)
            hits = await aclient.search("bicycle", user_id=user)
            return [r["memory"] for r in hits["results"]]

    out["async_search"] = asyncio.run(later())
    return out


def in_project(url: str, key: str, user: str, project: str) -> dict[str, Any]:
    """A client made for a project (`org_id` and `project_id`), with a key that reaches more
    than one: feedback and batches, which the client sends without `project_id`."""
    client = MemoryClient(api_key=key, host=url, org_id="factgraph", project_id=project)
    added = client.add(
        [{"role": "user", "content": "Owns a kayak"}, {"role": "user", "content": "Owns a tent"}],
        user_id=user,
        infer=False,
    )
    kayak, tent = (r["id"] for r in added["results"])
    out: dict[str, Any] = {"project_id": client.project_id, "kayak": kayak}
    # mem0ai 1.0's feedback raises TypeError on its own telemetry call once the server has
    # answered (capture_client_event takes no fourth argument); the test reads the audit.
    out["feedback"] = error(lambda: client.feedback(kayak, feedback="POSITIVE"))
    out["batch_update"] = client.batch_update([{"memory_id": kayak, "text": "Owns two kayaks"}])
    out["after_update"] = client.get(kayak)["memory"]
    out["batch_delete"] = client.batch_delete([{"memory_id": tent}])
    out["left"] = sorted(r["memory"] for r in client.get_all(user_id=user)["results"])
    return out


if __name__ == "__main__":
    if len(sys.argv) > 4:
        print(json.dumps(in_project(*sys.argv[1:5])))
    else:
        print(json.dumps(main(*sys.argv[1:4])))
