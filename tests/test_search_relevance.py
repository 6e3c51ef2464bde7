"""Relevance a caller can threshold, minScore on every interface, and the newer statement first,
against the real Neo4j and the real model."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from graph.errors import ValidationError
from graph.memory import Memory
from graph.search.newer import FLOOR
from tests.mcp_helpers import ok, over_http


def put(memory: Memory, scope: str, text: str, **fields: Any) -> str:
    return memory.remember(scope, {"text": text, **fields}).id


@pytest.fixture
def tennis(memory: Memory, scope: str) -> dict[str, str]:
    return {
        "ana": put(memory, scope, "Ana plays tennis every Saturday morning"),
        "club": put(memory, scope, "The tennis club on Elm Street opens at nine"),
        "cello": put(memory, scope, "Ben practises the cello for an hour after dinner"),
        "bread": put(memory, scope, "The bakery sells rye bread on Tuesdays"),
    }


def relevance(memory: Memory, scope: str, query: str, **options: Any) -> dict[str, float]:
    hits = memory.search(scope, query, track_access=False, **options).hits
    return {h.fact.id: h.relevance for h in hits}


def test_every_fact_holding_the_query_word_is_relevant_and_none_scores_zero(
    memory: Memory, scope: str, tennis: dict[str, str]
) -> None:
    """LangGraph's store test: of two items holding the query word, the second scored exactly
    0.0 under min-max fusion, and a caller dropping low scores lost it."""
    found = relevance(memory, scope, "tennis")
    matches = [found[tennis["ana"]], found[tennis["club"]]]
    others = [found[tennis["cello"]], found[tennis["bread"]]]
    assert min(matches) > 0.5 > max(others)
    assert all(0.0 < score < 1.0 for score in found.values())


def test_a_hits_relevance_does_not_depend_on_the_other_candidates(
    memory: Memory, scope: str, tennis: dict[str, str]
) -> None:
    """The model reads each candidate alone: leaving the best match out of the pool, or asking
    for fewer candidates, does not move another hit's relevance, where min-max fusion did."""
    alone = relevance(memory, scope, "tennis on Saturday")
    assert max(alone, key=alone.__getitem__) == tennis["ana"]
    without = relevance(memory, scope, "tennis on Saturday", exclude_ids=[tennis["ana"]])
    fewer = relevance(memory, scope, "tennis on Saturday", candidate_top_k=2)
    assert without[tennis["club"]] == pytest.approx(alone[tennis["club"]], abs=1e-9)
    assert fewer[tennis["club"]] == pytest.approx(alone[tennis["club"]], abs=1e-9)
    combsum = {"fusion": {"method": "combsum"}}
    before = relevance(memory, scope, "tennis on Saturday", **combsum)
    after = relevance(memory, scope, "tennis on Saturday", exclude_ids=[tennis["ana"]], **combsum)
    assert after[tennis["club"]] != pytest.approx(before[tennis["club"]])


def test_min_score_leaves_out_the_hits_below_it(
    memory: Memory, scope: str, tennis: dict[str, str]
) -> None:
    every = relevance(memory, scope, "tennis")
    cut = 0.5
    kept = relevance(memory, scope, "tennis", min_score=cut)
    assert set(kept) == {fid for fid, score in every.items() if score >= cut}
    assert set(kept) == {tennis["ana"], tennis["club"]}
    assert relevance(memory, scope, "tennis", min_score=1.0) == {}
    with pytest.raises(ValidationError) as caught:
        memory.search(scope, "tennis", min_score=1.5)
    assert caught.value.field == "min_score"


def test_graphql_rest_and_mcp_take_the_threshold(
    http: httpx.Client, server_url: str, scope: str, tennis: dict[str, str]
) -> None:
    query = (
        'query($s: String!) { search(scope: $s, query: "tennis", options: {minScore: 0.5})'
        " { hits { relevance fact { id } } } }"
    )
    body = http.post("/graphql", json={"query": query, "variables": {"s": scope}}).json()
    hits = body["data"]["search"]["hits"]
    assert {h["fact"]["id"] for h in hits} == {tennis["ana"], tennis["club"]}
    assert all(h["relevance"] >= 0.5 for h in hits)
    bad = http.post(
        "/graphql",
        json={
            "query": 'query($s: String!) { search(scope: $s, query: "x", '
            "options: {minScore: 2}) { hits { score } } }",
            "variables": {"s": scope},
        },
    ).json()
    assert "minScore" in bad["errors"][0]["message"]
    rest = http.post(
        "/api/v1/search", headers={"X-Scope": scope}, json={"query": "tennis", "threshold": 0.5}
    )
    assert rest.status_code == 200
    results = rest.json()["results"]
    assert {r["memory"]["id"] for r in results} == {tennis["ana"], tennis["club"]}
    assert all(r["relevance_score"] >= 0.5 for r in results)
    refused = http.post(
        "/api/v1/search", headers={"X-Scope": scope}, json={"query": "x", "threshold": -1}
    )
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "threshold"

    async def steps(session: ClientSession) -> dict[str, Any]:
        return ok(await session.call_tool("search", {"query": "tennis", "min_score": 0.5}))

    found = over_http(server_url, steps, scope=scope)
    assert {r["id"] for r in found["results"]} == {tennis["ana"], tennis["club"]}
    assert all(r["relevance"] >= 0.5 for r in found["results"])


def test_the_newer_statement_of_the_same_thing_ranks_first(memory: Memory, scope: str) -> None:
    """A conversation that updates what it said: the update ranks above the original, though
    the original matches the question's words better, and takes its score."""
    march, april = datetime(2024, 3, 5, tzinfo=UTC), datetime(2024, 4, 9, tzinfo=UTC)
    original = put(
        memory,
        scope,
        "user: The average response time of the dashboard API is 400 ms.",
        subject="user",
        session_id="2",
        turn=10,
        valid_from=march,
    )
    updated = put(
        memory,
        scope,
        "user: After the caching change the dashboard API's average response time is 250 ms.",
        subject="user",
        session_id="3",
        turn=41,
        valid_from=april,
    )
    put(memory, scope, "user: The login page needs a new logo.", subject="user", turn=12)
    question = "What is the average response time of the dashboard API?"
    plain = memory.search(scope, question, newer_first=False, track_access=False).hits
    assert [h.fact.id for h in plain[:2]] == [original, updated]
    assert min(h.relevance for h in plain[:2]) >= FLOOR
    ranked = memory.search(scope, question, track_access=False).hits
    assert [h.fact.id for h in ranked[:2]] == [updated, original]
    assert ranked[0].score == pytest.approx(plain[0].score)
    assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)


def test_statements_of_different_subjects_keep_their_order(memory: Memory, scope: str) -> None:
    """Two speakers saying different things about a topic are not an update of each other."""
    first = put(
        memory,
        scope,
        "Caroline: The average response time of the dashboard API is 400 ms.",
        subject="Caroline",
        session_id="1",
        turn=1,
        valid_from=datetime(2024, 3, 5, tzinfo=UTC),
    )
    later = put(
        memory,
        scope,
        "Melanie: I think the dashboard API's average response time is around 250 ms.",
        subject="Melanie",
        session_id="2",
        turn=1,
        valid_from=datetime(2024, 4, 9, tzinfo=UTC),
    )
    question = "What is the average response time of the dashboard API?"
    plain = memory.search(scope, question, newer_first=False, track_access=False).hits
    ranked = memory.search(scope, question, track_access=False).hits
    assert [h.fact.id for h in ranked] == [h.fact.id for h in plain]
    assert {first, later} <= {h.fact.id for h in ranked}
