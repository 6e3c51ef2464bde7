"""mem0's own Python client (2.x, `MemoryClient` and `AsyncMemoryClient`), unchanged, against a
real factgraph server: a mem0 user switches by changing the host and keeps every call.

Each test works in a project of its own (`<project>/user:<id>` scopes) with a key bound to it
(`<project>/*`), as a deployment would; the last tests use the key-less loopback server.
The 1.x and JavaScript clients run the same calls in tests/test_mem0_other_clients.py.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mem0 import AsyncMemoryClient, MemoryClient
from mem0.exceptions import AuthenticationError, MemoryNotFoundError
from mem0.exceptions import ValidationError as Mem0ValidationError
from mem0.memory import telemetry
from starlette.applications import Starlette

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import namespace_prefix, owner_scope
from graph.consolidation import Consolidator
from graph.memory import Memory
from tests.mem0_helpers import project


@pytest.fixture
def mem0(secured: tuple[Starlette, str], memory: Memory) -> Iterator[tuple[MemoryClient, str]]:
    """mem0's client on a project of the test's own, and the project's name."""
    app, url = secured
    with project(app, memory) as (name, token):
        client = MemoryClient(api_key=token, host=url)
        try:
            yield client, name
        finally:
            client.client.close()


def texts(results: list[dict[str, Any]]) -> list[str]:
    return [r["memory"] for r in results]


def test_the_client_learns_its_project_from_the_key(
    mem0: tuple[MemoryClient, str],
) -> None:
    client, name = mem0
    assert client.project_id == name
    assert client.org_id == "factgraph"
    assert client.user_email == "mem0-test@example.org"  # the key's label


def test_added_memories_are_found_by_get_search_and_list_with_filters(
    mem0: tuple[MemoryClient, str], memory: Memory
) -> None:
    client, name = mem0
    added = client.add(
        [
            {"role": "user", "content": "I am allergic to peanuts"},
            {"role": "user", "content": "My sister lives in Lisbon"},
        ],
        user_id="alice",
        metadata={"source": "onboarding"},
        infer=False,
    )
    assert [r["event"] for r in added["results"]] == ["ADD", "ADD"]
    assert added["extraction"] == "skipped"
    client.add("Bob is allergic to cats", filters={"user_id": "bob"}, infer=False)
    peanuts = added["results"][0]["id"]

    got = client.get(peanuts)
    assert got["memory"] == "I am allergic to peanuts"
    assert got["user_id"] == "alice" and got["agent_id"] is None
    assert got["metadata"] == {"source": "onboarding"}
    # Each user is a scope of its own under the project.
    assert memory.get(owner_scope(name, "user", "alice"), peanuts) is not None

    alice = client.search("what is she allergic to?", filters={"user_id": "alice"})
    assert texts(alice["results"])[0] == "I am allergic to peanuts"
    assert "Bob is allergic to cats" not in texts(alice["results"])
    assert all(r["score"] >= 0.0 for r in alice["results"])
    either = client.search("allergic", filters={"OR": [{"user_id": "alice"}, {"user_id": "bob"}]})
    assert {"I am allergic to peanuts", "Bob is allergic to cats"} <= set(texts(either["results"]))
    assert len(client.search("allergic", filters={"user_id": "alice"}, top_k=1)["results"]) == 1
    by_metadata = client.search(
        "sister", filters={"AND": [{"user_id": "alice"}, {"metadata": {"source": "onboarding"}}]}
    )
    assert "My sister lives in Lisbon" in texts(by_metadata["results"])
    assert client.search("sister", filters={"user_id": "alice", "metadata": {"source": "x"}}) == {
        "results": []
    }

    listed = client.get_all(filters={"user_id": "alice"})
    assert listed["count"] == 2 and listed["next"] is None
    assert set(texts(listed["results"])) == {
        "I am allergic to peanuts",
        "My sister lives in Lisbon",
    }
    paged = client.get_all(filters={"user_id": {"in": ["alice", "bob"]}}, page=1, page_size=2)
    assert paged["count"] == 3 and len(paged["results"]) == 2 and paged["next"] is not None
    words = client.get_all(filters={"user_id": "*", "keywords": {"icontains": "LISBON"}})
    assert texts(words["results"]) == ["My sister lives in Lisbon"]


def test_threshold_keeps_the_hits_that_reach_it(mem0: tuple[MemoryClient, str]) -> None:
    client, _ = mem0
    client.add(
        [
            {"role": "user", "content": "I play the cello in an orchestra"},
            {"role": "user", "content": "The cello was made in Cremona"},
            {"role": "user", "content": "I parked the car on level two"},
        ],
        user_id="carol",
        infer=False,
    )
    everything = client.search("cello orchestra", filters={"user_id": "carol"})["results"]
    scores = [r["score"] for r in everything]
    assert len(scores) == 3 and scores[0] > scores[-1]
    threshold = (scores[0] + scores[-1]) / 2
    kept = client.search("cello orchestra", filters={"user_id": "carol"}, threshold=threshold)
    assert all(r["score"] >= threshold for r in kept["results"])
    assert len(kept["results"]) == sum(1 for s in scores if s >= threshold) < 3


def test_the_score_is_the_relevance_a_threshold_compares(
    mem0: tuple[MemoryClient, str], memory: Memory
) -> None:
    """mem0's callers threshold `score`: it is factgraph's relevance of the hit, the chance
    (0..1) that the memory answers the query, and not a share of the best hit's score."""
    client, name = mem0
    client.add(
        [
            {"role": "user", "content": "I play the cello in an orchestra"},
            {"role": "user", "content": "I parked the car on level two"},
        ],
        user_id="carol",
        infer=False,
    )
    found = client.search("cello orchestra", filters={"user_id": "carol"})["results"]
    own = memory.search(owner_scope(name, "user", "carol"), "cello orchestra").hits
    assert {r["id"]: r["score"] for r in found} == pytest.approx(
        {h.fact.id: h.relevance for h in own}
    )
    assert all(0.0 <= r["score"] <= 1.0 for r in found)


def test_ids_beyond_the_user_are_tags_found_across_users(
    mem0: tuple[MemoryClient, str],
) -> None:
    """A memory carries every id it was added with; an agent's filter finds its memories in
    every user's scope and in its own."""
    client, _ = mem0
    client.add(
        "Dana prefers window seats", user_id="dana", agent_id="travel", run_id="t1", infer=False
    )
    client.add("Eli prefers aisle seats", user_id="eli", agent_id="travel", infer=False)
    client.add("Bookings close at noon", agent_id="travel", infer=False)
    client.add("Dana likes jazz", user_id="dana", agent_id="music", infer=False)
    travel = client.get_all(filters={"agent_id": "travel"})
    assert set(texts(travel["results"])) == {
        "Dana prefers window seats",
        "Eli prefers aisle seats",
        "Bookings close at noon",
    }
    found = client.search("seat preferences", filters={"agent_id": "travel"}, top_k=10)
    assert {"Dana prefers window seats", "Eli prefers aisle seats"} <= set(texts(found["results"]))
    assert "Dana likes jazz" not in texts(found["results"])
    in_run = client.get_all(filters={"AND": [{"user_id": "dana"}, {"run_id": "*"}]})
    assert texts(in_run["results"]) == ["Dana prefers window seats"]
    assert in_run["results"][0]["run_id"] == "t1"
    not_music = client.get_all(filters={"user_id": "dana", "NOT": {"agent_id": "music"}})
    assert texts(not_music["results"]) == ["Dana prefers window seats"]


def test_a_memory_keeps_its_id_and_created_at_across_updates(
    mem0: tuple[MemoryClient, str], memory: Memory
) -> None:
    """mem0 keeps a memory's id and `created_at` when its text changes, and integrations store
    the id: every read answers the id `add` gave, while factgraph keeps the versions inside as
    a supersede chain."""
    client, name = mem0
    first = client.add("I work at Acme", user_id="fay", infer=False)["results"][0]["id"]
    created = client.get(first)["created_at"]
    updated = client.update(first, text="I work at Globex")
    assert (updated["id"], updated["memory"]) == (first, "I work at Globex")
    assert updated["created_at"] == created
    got = client.get(first)
    assert (got["id"], got["memory"], got["created_at"]) == (first, "I work at Globex", created)
    found = client.search("where does she work?", filters={"user_id": "fay"})["results"]
    assert [(r["id"], r["memory"]) for r in found] == [(first, "I work at Globex")]
    listed = client.get_all(filters={"user_id": "fay"})["results"]
    assert [(r["id"], r["created_at"]) for r in listed] == [(first, created)]
    assert (
        client.get_all(filters={"AND": [{"user_id": "fay"}, {"memory_ids": [first]}]})["count"] == 1
    )
    # Inside, the old version is kept, superseded, and the new one has an id of its own,
    # which addresses the memory too.
    chain = memory.history(owner_scope(name, "user", "fay"), first)
    assert [f.status.value for f in chain] == ["superseded", "active"]
    assert chain[1].id != first and client.get(chain[1].id)["id"] == first

    relabelled = client.update(first, metadata={"team": "sales"})
    assert relabelled["id"] == first and relabelled["metadata"] == {"team": "sales"}
    client.delete(first)
    with pytest.raises(MemoryNotFoundError):
        client.get(first)
    assert client.get_all(filters={"user_id": "fay"})["results"] == []


def test_history_names_the_memory_in_every_entry(mem0: tuple[MemoryClient, str]) -> None:
    """Code that filters the history by the id it holds keeps every change; entries have
    UUIDs (the same at every read), the message that made them (`input`) and mem0's names."""
    client, _ = mem0
    first = client.add("I work at Acme", user_id="fay", run_id="r1", infer=False)["results"][0][
        "id"
    ]
    client.update(first, text="I work at Globex")
    client.update(first, text="I work at Initech")
    client.delete(first)
    events = client.history(first)
    mine = [e for e in events if e["memory_id"] == first]
    assert [e["event"] for e in mine] == ["ADD", "UPDATE", "UPDATE", "DELETE"]
    assert [(e["old_memory"], e["new_memory"]) for e in mine] == [
        (None, "I work at Acme"),
        ("I work at Acme", "I work at Globex"),
        ("I work at Globex", "I work at Initech"),
        ("I work at Initech", None),
    ]
    assert mine[0]["input"] == [{"role": "user", "content": "I work at Acme"}]
    assert mine[-1]["input"] == [] and mine[-1]["is_deleted"] is True
    assert all(e["user_id"] == "fay" and e["session_id"] == "r1" for e in mine)
    entry_ids = [str(uuid.UUID(e["id"])) for e in mine]
    assert len(set(entry_ids)) == 4 and [e["id"] for e in client.history(first)] == entry_ids


def test_update_with_a_timestamp_alone_moves_when_the_memory_holds_from(
    mem0: tuple[MemoryClient, str],
) -> None:
    """mem0's client documents `update(id, timestamp=...)`: the memory's time changes in place
    (its text, id and `created_at` stay), and a filter on `timestamp` sees it."""
    client, _ = mem0
    first = client.add("I ran a marathon", user_id="gil", infer=False)["results"][0]["id"]
    before = client.get(first)
    moved = client.update(first, timestamp=1_577_836_800)  # 2020-01-01 UTC
    assert moved["id"] == first and moved["memory"] == "I ran a marathon"
    assert moved["timestamp"].startswith("2020-01-01T00:00:00")
    assert moved["created_at"] == before["created_at"]
    old = client.get_all(filters={"user_id": "gil", "timestamp": {"lt": "2021-01-01"}})
    assert [r["id"] for r in old["results"]] == [first]
    iso = client.update(first, timestamp="2019-06-01T12:00:00Z")
    assert iso["timestamp"].startswith("2019-06-01T12:00:00")


def test_delete_all_and_entities(mem0: tuple[MemoryClient, str]) -> None:
    client, _ = mem0
    client.add("Gus owns a boat", user_id="gus", infer=False)
    client.add("Gus sails on Sundays", user_id="gus", app_id="harbour", infer=False)
    client.add("Hal owns a bike", user_id="hal", infer=False)
    entities = client.users()
    assert {(e["type"], e["name"], e["total_memories"]) for e in entities["results"]} == {
        ("user", "gus", 2),
        ("user", "hal", 1),
        ("app", "harbour", 1),
    }
    assert entities["total_users"] == 2 and entities["total_apps"] == 1
    assert client.delete_all(user_id="gus")["deleted"] == 2
    assert client.get_all(filters={"user_id": "gus"})["results"] == []
    assert texts(client.get_all(filters={"user_id": "hal"})["results"]) == ["Hal owns a bike"]
    assert client.delete_users(user_id="hal") == {"message": "Entity deleted successfully."}
    assert client.users()["results"] == []


def test_batches_and_feedback(mem0: tuple[MemoryClient, str], memory: Memory) -> None:
    client, name = mem0
    added = client.add(
        [{"role": "user", "content": "Ivy reads poetry"}, {"role": "user", "content": "Ivy runs"}],
        user_id="ivy",
        infer=False,
    )
    reads, runs = (r["id"] for r in added["results"])
    updated = client.batch_update([{"memory_id": reads, "text": "Ivy reads novels"}])
    assert updated == {"message": "Successfully updated 1 memories"}
    assert client.get(reads)["memory"] == "Ivy reads novels"
    with pytest.raises(MemoryNotFoundError):  # one unknown id refuses the whole batch
        client.batch_delete([{"memory_id": runs}, {"memory_id": str(uuid.uuid4())}])
    assert client.get(runs)["memory"] == "Ivy runs"
    assert client.batch_delete([{"memory_id": runs}]) == {
        "message": "Successfully deleted 1 memories"
    }
    noted = client.feedback(reads, feedback="negative", feedback_reason="outdated")
    assert noted["feedback"] == "NEGATIVE" and noted["feedback_reason"] == "outdated"
    assert noted["id"] == reads  # the memory's id; the audit is on its current version
    scope = owner_scope(name, "user", "ivy")
    trail = memory.audit_trail(scope, memory.history(scope, reads)[-1].id)
    assert ("feedback", "NEGATIVE: outdated") in [(e.kind, e.reason) for e in trail]
    key_id = client.api_key.split("_")[1]  # fgk_<id>_<secret>: the audit names the key
    assert {e.actor for e in trail} == {key_id}


def test_mem0_telemetry_is_off_in_the_suite() -> None:
    """mem0's clients report usage to PostHog unless told not to (tests/conftest.py does)."""
    assert telemetry.MEM0_TELEMETRY is False
    assert telemetry.client_telemetry.posthog is None


def test_bad_input_is_a_clear_400_and_writes_nothing(
    mem0: tuple[MemoryClient, str], memory: Memory
) -> None:
    client, name = mem0
    with pytest.raises(Mem0ValidationError) as no_owner:
        client.add("I like tea", metadata={"x": 1})
    assert no_owner.value.details["error"]["field"] == "user_id"
    with pytest.raises(Mem0ValidationError) as empty:
        client.add(
            [{"role": "user", "content": "fine"}, {"role": "user", "content": " "}], user_id="jo"
        )
    assert empty.value.details["error"]["field"] == "messages[1].content"
    with pytest.raises(Mem0ValidationError) as unknown:
        client.search("tea", filters={"user_id": "jo", "colour": "red"})
    assert unknown.value.details["error"]["field"] == "filters.colour"
    assert "unknown filter field" in unknown.value.message
    with pytest.raises(Mem0ValidationError) as operator:
        client.get_all(filters={"user_id": {"like": "j%"}})
    assert operator.value.details["error"]["field"] == "filters.user_id.like"
    with pytest.raises(Mem0ValidationError) as field:
        client.add("I like tea", user_id="jo", colour="red")
    assert field.value.details["error"]["field"] == "colour"
    with pytest.raises(Mem0ValidationError):
        client.search("tea", filters={"user_id": "jo"}, top_k=1001)
    assert store.project_scopes(memory.db, namespace_prefix(name)) == []


def test_keys_are_checked_per_project_and_role(
    secured: tuple[Starlette, str], memory: Memory
) -> None:
    app, url = secured
    with project(app, memory) as (mine, writer), project(app, memory, "reader") as (_, reader):
        kept = MemoryClient(api_key=writer, host=url).add(
            "Kim keeps bees", user_id="kim", infer=False
        )
        kim = kept["results"][0]["id"]
        other = MemoryClient(api_key=reader, host=url)
        with pytest.raises(MemoryNotFoundError):  # another project's memory does not exist
            other.get(kim)
        # Naming the other project is refused before anything is looked up: the same answer
        # for a memory that exists and one that does not.
        asked = [
            httpx.get(
                f"{url}/v1/memories/{memory_id}/",
                headers={"Authorization": f"Token {reader}", "X-Scope": mine},
                timeout=60,
            )
            for memory_id in (kim, str(uuid.uuid4()))
        ]
        assert [a.status_code for a in asked] == [403, 403]
        assert asked[0].text == asked[1].text and kim not in asked[0].text
        with pytest.raises(AuthenticationError):  # a reader may not write
            other.add("Lu keeps ants", user_id="lu", infer=False)
        with pytest.raises(ValueError, match="not valid"):  # the constructor's ping
            MemoryClient(api_key="fgk_nonsense", host=url)
        single = app.state.gate.keys.create([owner_scope(mine, "user", "kim")], "reader")
        try:
            with pytest.raises(ValueError, match=r"--scope '.*/\*'"):
                MemoryClient(api_key=single[1], host=url)
        finally:
            app.state.gate.keys.delete(single[0].id)


def test_infer_stores_the_turns_and_says_whether_extraction_follows(
    mem0: tuple[MemoryClient, str], memory: Memory
) -> None:
    client, name = mem0
    first = client.add(
        [
            {"role": "user", "content": "I just adopted a greyhound"},
            {"role": "assistant", "content": "Congratulations! What is its name?"},
        ],
        user_id="mo",
        run_id="chat-1",
    )
    assert first["extraction"] == "unavailable" and "FACTGRAPH_LLM_BASE_URL" in first["message"]
    later = client.add("His name is Pixel", user_id="mo", run_id="chat-1")
    scope = owner_scope(name, "user", "mo")
    turns = [memory.get(scope, r["id"]) for r in (*first["results"], *later["results"])]
    assert [(f.session_id, f.turn) for f in turns if f is not None] == [
        ("chat-1", 0),
        ("chat-1", 1),
        ("chat-1", 2),
    ]
    # Queued for the consolidator, whose extraction reads each turn with the ones before it.
    assert Consolidator(memory).status(scope).queued == 3


def test_the_async_client(secured: tuple[Starlette, str], memory: Memory) -> None:
    app, url = secured
    with project(app, memory) as (_, token):

        async def calls() -> tuple[list[str], list[str], int]:
            async with AsyncMemoryClient(api_key=token, host=url) as client:
                added = await client.add("Nia speaks Welsh", user_id="nia", infer=False)
                found = await client.search("languages", filters={"user_id": "nia"})
                await client.delete(added["results"][0]["id"])
                left = await client.get_all(filters={"user_id": "nia"})
                return [added["results"][0]["event"]], texts(found["results"]), left["count"]

        events, found, left = asyncio.run(calls())
    assert events == ["ADD"] and found == ["Nia speaks Welsh"] and left == 0


def test_loopback_needs_no_key(server_url: str, memory: Memory) -> None:
    """Without keys (a loopback server), any key string works, on FACTGRAPH_DEFAULT_SCOPE's
    project, as for the REST API."""
    user = f"u-{uuid.uuid4().hex[:10]}"
    client = MemoryClient(api_key="anything", host=server_url)
    try:
        assert client.project_id == "default"
        mid = client.add("Ola collects stamps", user_id=user, infer=False)["results"][0]["id"]
        assert client.get(mid)["memory"] == "Ola collects stamps"
        assert memory.get(owner_scope("default", "user", user), mid) is not None
    finally:
        client.client.close()
        memory.db.write("scope_delete", {"scope": owner_scope("default", "user", user)})


def test_the_1x_routes_and_mem0_error_bodies_over_plain_http(
    secured: tuple[Starlette, str], memory: Memory
) -> None:
    """What no client of today calls but mem0's API still serves (`GET /v1/memories/`), a
    delete by ids that names none, and a refused key, as mem0's clients read them: `detail`."""
    app, url = secured
    with project(app, memory) as (_, token), httpx.Client(base_url=url, timeout=60) as http:
        auth = {"Authorization": f"Token {token}"}
        body = {"messages": [{"role": "user", "content": "Pia knits"}], "user_id": "pia"}
        assert http.post("/v1/memories/", json={**body, "infer": False}, headers=auth).is_success
        listed = http.get("/v1/memories/", params={"user_id": "pia"}, headers=auth)
        assert [m["memory"] for m in listed.json()] == ["Pia knits"]
        paged = http.get(
            "/v1/memories/", params={"user_id": "pia", "page": 1, "page_size": 5}, headers=auth
        )
        assert paged.json()["count"] == 1
        unnamed = http.delete("/v1/memories/", headers=auth)
        assert unnamed.status_code == 400 and "user_id" in unnamed.json()["detail"]
        everyone = http.delete("/v1/memories/", params={"user_id": "*"}, headers=auth)
        assert everyone.json()["deleted"] == 1
        refused = http.get("/v1/ping/", headers={"Authorization": "Token fgk_nonsense"})
        assert refused.status_code == 401
        assert refused.json()["detail"] == "the API key is not valid"
