"""What mem0's clients rely on beyond the shape of a call, with mem0's Python client (2.x)
against a real server: an add's event to poll, which messages become memories, a text said
again by another agent, searches that reach every owner a filter names, ids holding `/`.

Each test works in a project of its own with a key bound to it; the 1.x and JavaScript
clients' share of these is in tests/test_mem0_other_clients.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from mem0 import MemoryClient
from mem0.exceptions import ValidationError as Mem0ValidationError
from starlette.applications import Starlette

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import namespace_prefix
from graph.config import ConsolidationSettings
from graph.consolidation import Consolidator
from graph.memory import Memory
from tests.mem0_helpers import project


@pytest.fixture
def mem0(secured: tuple[Starlette, str], memory: Memory) -> Iterator[MemoryClient]:
    """mem0's client on a project of the test's own."""
    app, url = secured
    with project(app, memory) as (_, token):
        client = MemoryClient(api_key=token, host=url)
        try:
            yield client
        finally:
            client.client.close()


def texts(results: list[dict[str, Any]]) -> list[str]:
    return [r["memory"] for r in results]


def test_an_add_answers_an_event_that_polling_finds_done(mem0: MemoryClient) -> None:
    """mem0's v3 add answers an `event_id` to poll with `GET /v1/event/{id}/`; factgraph's
    add is done when it answers, so the event already says SUCCEEDED, with the results."""
    added = mem0.add("I like green tea", user_id="hu", metadata={"k": 1}, infer=False)
    assert added["status"] == "SUCCEEDED" and texts(added["results"]) == ["I like green tea"]
    polled = mem0.client.get(f"/v1/event/{uuid.UUID(added['event_id'])}/")
    event = polled.json()
    assert polled.status_code == 200, polled.text
    assert (event["id"], event["event_type"], event["status"]) == (
        added["event_id"],
        "ADD",
        "SUCCEEDED",
    )
    assert event["results"] == added["results"]
    assert event["payload"]["messages"] == [{"role": "user", "content": "I like green tea"}]
    assert event["latency"] >= 0 and event["completed_at"] >= event["started_at"]
    assert mem0.client.get(f"/v1/event/{uuid.uuid4()}/").status_code == 404


def test_system_and_tool_messages_are_not_memories(mem0: MemoryClient) -> None:
    """mem0's rule: user and assistant messages become memories, system and tool messages do
    not; an unknown role is refused, naming the message."""
    conversation = [
        {"role": "system", "content": "You are a travel agent"},
        {"role": "user", "content": "I prefer trains over planes"},
        {"role": "assistant", "content": "Noted: you travel by train"},
        {"role": "tool", "content": '{"booking": 42}'},
    ]
    for infer in (False, True):
        added = mem0.add(conversation, user_id=f"ida-{infer}", infer=infer)
        assert texts(added["results"]) == [
            "I prefer trains over planes",
            "Noted: you travel by train",
        ]
        listed = mem0.get_all(filters={"user_id": f"ida-{infer}"})["results"]
        assert sorted(texts(listed)) == [
            "I prefer trains over planes",
            "Noted: you travel by train",
        ]
    # Who said it is kept: the history's `input` gives the message with its role.
    assistant = mem0.add([conversation[2]], user_id="ida-roles", infer=False)["results"][0]
    assert mem0.history(assistant["id"])[0]["input"] == [conversation[2]]
    assert mem0.get(assistant["id"])["categories"] is None  # the role is no category
    only_system = mem0.add([conversation[0]], user_id="ida-system", infer=False)
    assert only_system["results"] == [] and only_system["status"] == "SUCCEEDED"
    with pytest.raises(Mem0ValidationError) as refused:
        mem0.add([{"role": "narrator", "content": "It was night"}], user_id="ida", infer=False)
    assert refused.value.details["error"]["field"] == "messages[0].role"
    assert "narrator" in refused.value.message


def test_a_bare_string_for_messages_gets_mem0s_error(mem0: MemoryClient) -> None:
    """mem0's API takes a list of messages (its Python client wraps a string; its JavaScript
    client sends one as given, tests/test_mem0_other_clients.py)."""
    sent = mem0.client.post("/v3/memories/add/", json={"messages": "I like tea", "user_id": "jo"})
    assert sent.status_code == 400
    assert sent.json()["error"]["field"] == "messages"
    assert "Invalid input data" in sent.json()["detail"]


def test_the_same_text_from_another_agent_gains_that_agent(mem0: MemoryClient) -> None:
    """A text the user already holds, said with another agent_id, is the same memory (its id),
    now found by either agent's filter; said again by the same agent, it changes nothing."""
    first = mem0.add("Ana is vegan", user_id="ana", agent_id="chef", infer=False)["results"][0]
    again = mem0.add("Ana is vegan", user_id="ana", agent_id="nutrition", infer=False)
    assert [(r["id"], r["event"]) for r in again["results"]] == [(first["id"], "UPDATE")]
    for agent in ("chef", "nutrition"):
        listed = mem0.get_all(filters={"agent_id": agent})["results"]
        assert [r["id"] for r in listed] == [first["id"]]
        found = mem0.search("what does Ana eat?", filters={"agent_id": agent})["results"]
        assert [r["id"] for r in found] == [first["id"]]
    same = mem0.add("Ana is vegan", user_id="ana", agent_id="chef")
    assert [(r["id"], r["event"]) for r in same["results"]] == [(first["id"], "NONE")]
    assert mem0.get_all(filters={"user_id": "ana"})["count"] == 1


def test_search_reaches_every_owner_a_filter_names(mem0: MemoryClient) -> None:
    """An agent's memories spread over 21 users, and every user (`"*"`), are all searched."""
    for i in range(21):
        mem0.add(f"User {i} paints with watercolours", user_id=f"u{i}", agent_id="bot", infer=False)
    by_agent = mem0.search("painting", filters={"agent_id": "bot"}, top_k=50)["results"]
    assert sorted(r["user_id"] for r in by_agent) == sorted(f"u{i}" for i in range(21))
    everyone = mem0.search("painting", filters={"user_id": "*"}, top_k=1000)["results"]
    assert len(everyone) == 21
    assert [r["score"] for r in everyone] == sorted((r["score"] for r in everyone), reverse=True)


def test_top_k_reaches_past_a_hundred_hits_of_one_user(mem0: MemoryClient) -> None:
    said = [
        {"role": "user", "content": f"Reading note {i}: chapter {i} of the novel"}
        for i in range(130)
    ]
    mem0.add(said, user_id="rea", infer=False)
    found = mem0.search("novel chapter notes", filters={"user_id": "rea"}, top_k=1000)["results"]
    assert len(found) == 130 and len({r["id"] for r in found}) == 130
    assert len(mem0.search("novel", filters={"user_id": "rea"}, top_k=120)["results"]) == 120


def test_show_expired_finds_expired_memories_in_search_as_in_lists(mem0: MemoryClient) -> None:
    kept = mem0.add("The coupon code is SPRING", user_id="kai", infer=False)["results"][0]["id"]
    mem0.update(kept, expiration_date="2020-01-31")
    asked = {"filters": {"user_id": "kai"}}
    assert mem0.search("coupon code", **asked)["results"] == []
    found = mem0.search("coupon code", show_expired=True, **asked)["results"]
    assert [(r["id"], r["expiration_date"]) for r in found] == [(kept, "2020-01-31")]
    assert mem0.get_all(show_expired=True, **asked)["count"] == 1


def test_the_expiry_sweep_hides_an_expired_memory_that_mem0_still_shows_and_updates(
    secured: tuple[Starlette, str], memory: Memory
) -> None:
    app, url = secured
    with project(app, memory) as (name, token):
        client = MemoryClient(api_key=token, host=url)
        try:
            kept = client.add("The locker code is 2291", user_id="kai", infer=False)
            kept_id = kept["results"][0]["id"]
            client.update(kept_id, expiration_date="2020-01-31")
            sweep = Consolidator(memory, ConsolidationSettings())  # the default: hide
            scopes = store.project_scopes(memory.db, namespace_prefix(name))
            assert sum(sweep.expire(scope) for scope in scopes) == 1

            asked = {"filters": {"user_id": "kai"}}
            assert client.search("locker code", **asked)["results"] == []
            shown = client.search("locker code", show_expired=True, **asked)["results"]
            assert [r["id"] for r in shown] == [kept_id]
            # The date cleared: the memory is back, and the same text again is a duplicate of it.
            client.update(kept_id, expiration_date=None)
            assert [r["id"] for r in client.search("locker code", **asked)["results"]] == [kept_id]
            again = client.add("The locker code is 2291", user_id="kai", infer=False)
            assert [r["id"] for r in client.get_all(**asked)["results"]] == [kept_id]
            assert again["results"] == [] or again["results"][0]["id"] == kept_id
        finally:
            client.client.close()


def test_ids_holding_a_slash_are_deleted_by_entity(mem0: MemoryClient) -> None:
    """mem0's client encodes an id's `/` in the entity route's path."""
    mem0.add("Lee plays chess", user_id="team/lee", infer=False)
    mem0.add("Lee's bot keeps score", user_id="team/lee", agent_id="scores/v2", infer=False)
    assert mem0.delete_users(agent_id="scores/v2") == {"message": "Entity deleted successfully."}
    assert texts(mem0.get_all(filters={"user_id": "team/lee"})["results"]) == ["Lee plays chess"]
    mem0.delete_users(user_id="team/lee")
    assert mem0.get_all(filters={"user_id": "team/lee"})["results"] == []
