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
from graph.search import SearchOptions, engine
from graph.search.newer import FLOOR, Timed, reorder, updates
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


MODEL = {"method": "model"}


def relevance(memory: Memory, scope: str, query: str, **options: Any) -> dict[str, float]:
    hits = memory.search(scope, query, track_access=False, **options).hits
    return {h.fact.id: h.relevance for h in hits}


def test_every_hit_has_a_relevance_strictly_between_zero_and_one(
    memory: Memory, scope: str, tennis: dict[str, str]
) -> None:
    """LangGraph's store test: of two items holding the query word, the second scored exactly
    0.0 under min-max fusion, and a caller dropping low scores lost it."""
    for fusion in (None, MODEL):
        found = relevance(memory, scope, "When does the tennis club open?", fusion=fusion)
        assert set(found) == set(tennis.values())
        assert all(0.0 < score < 1.0 for score in found.values())
        assert max(found, key=found.__getitem__) == tennis["club"]


def test_a_hits_relevance_does_not_depend_on_the_other_candidates(
    memory: Memory, scope: str, tennis: dict[str, str]
) -> None:
    """The same fact for the same query has the same relevance whichever other facts are in
    the pool: when the best match is excluded, or each list keeps two candidates only. The
    order's own score (`score`, a share of the search's best) is what changes."""
    question = "Where does Ana play tennis?"
    every = memory.search(scope, question, track_access=False).hits
    assert every[0].fact.id == tennis["ana"]
    without_best = memory.search(
        scope, question, track_access=False, exclude_ids=[tennis["ana"]]
    ).hits
    few = memory.search(scope, question, track_access=False, candidate_top_k=2).hits
    alone = {h.fact.id: h.relevance for h in every}
    for hits in (without_best, few):
        assert hits
        for h in hits:
            assert h.relevance == pytest.approx(alone[h.fact.id], abs=1e-9)
    club = {h.fact.id: h for h in without_best}[tennis["club"]]
    assert club.score > {h.fact.id: h for h in every}[tennis["club"]].score


def test_relevance_is_the_same_with_the_passage_list_asked_apart(
    memory: Memory, scope: str
) -> None:
    """An overlapped search asks the passage list before the query is embedded; the vector
    scores of the candidates only it found are asked after, so every candidate is scored on
    the same signals either way."""
    for turn, text in enumerate(
        ["We hiked to the glacier lake", "My boots gave me blisters", "Get some moleskin"]
    ):
        put(memory, scope, text, session_id="s1", turn=turn)
    for fusion in (None, MODEL):
        options = SearchOptions.build(track_access=False, fusion=fusion)
        together, apart = (
            engine.search(
                memory.db, memory.embedder, scope, "blisters on the hike", options, overlap=overlap
            )
            for overlap in (False, True)
        )
        assert [h.fact.id for h in apart.hits] == [h.fact.id for h in together.hits]
        assert [h.relevance for h in apart.hits] == pytest.approx(
            [h.relevance for h in together.hits], abs=1e-9
        )
        assert {s.list for h in apart.hits for s in h.sources} >= {"passage", "vector"}


def test_a_hits_relevance_is_the_same_when_only_the_hits_vector_scores_are_read(
    memory: Memory, scope: str
) -> None:
    """Without a threshold or MODEL fusion, a search reads the vector score of its returned
    hits alone, after ordering; a threshold makes it read every candidate's first. Each hit
    reports the same relevance either way, the hits the vector list did not find included."""
    said = "2024-03-15T10:00:00Z"  # the day is embedded with the text: pinned, as are the ranks
    cat = put(memory, scope, "Zorblat is what my neighbour calls her grey cat", valid_from=said)
    revenue = put(
        memory, scope, "The quarterly revenue figures rose by ten percent", valid_from=said
    )
    put(memory, scope, "We walked along the river after lunch", valid_from=said)
    question = "zorblat revenue"
    for overlap in (False, True):
        hits_only, every = (
            engine.search(
                memory.db,
                memory.embedder,
                scope,
                question,
                SearchOptions.build(track_access=False, candidate_top_k=1, min_score=floor),
                overlap=overlap,
            ).hits
            for floor in (0.0, 1e-12)
        )
        assert [h.fact.id for h in hits_only] == [h.fact.id for h in every]
        sources = {h.fact.id: {s.list for s in h.sources} for h in hits_only}
        assert sources == {revenue: {"fulltext"}, cat: {"vector"}}
        assert [h.relevance for h in hits_only] == pytest.approx(
            [h.relevance for h in every], abs=1e-9
        )


def cut_between(memory: Memory, scope: str, tennis: dict[str, str]) -> float:
    """A threshold between the relevance of the two facts holding "tennis" and of the others.
    The values themselves move with the index's statistics (how rare "tennis" is among all the
    facts of the database, which other tests write to), their order does not."""
    every = relevance(memory, scope, "tennis")
    matches = [every[tennis["ana"]], every[tennis["club"]]]
    others = [every[tennis["cello"]], every[tennis["bread"]]]
    assert min(matches) > 2 * max(others)
    return (min(matches) + max(others)) / 2


def test_min_score_leaves_out_the_hits_below_it(
    memory: Memory, scope: str, tennis: dict[str, str]
) -> None:
    """A one-word query: both facts holding the word are far likelier answers than the
    others, and a threshold between keeps exactly them."""
    cut = cut_between(memory, scope, tennis)
    kept = relevance(memory, scope, "tennis", min_score=cut)
    assert set(kept) == {tennis["ana"], tennis["club"]}
    assert all(score >= cut for score in kept.values())
    assert relevance(memory, scope, "tennis", min_score=1.0 - 1e-9) == {}
    with pytest.raises(ValidationError) as caught:
        memory.search(scope, "tennis", min_score=1.5)
    assert caught.value.field == "min_score"


def test_graphql_rest_and_mcp_take_the_threshold(
    http: httpx.Client, server_url: str, memory: Memory, scope: str, tennis: dict[str, str]
) -> None:
    cut = cut_between(memory, scope, tennis)
    query = (
        'query($s: String!, $c: Float!) { search(scope: $s, query: "tennis", '
        "options: {minScore: $c}) { hits { relevance fact { id } } } }"
    )
    body = http.post("/graphql", json={"query": query, "variables": {"s": scope, "c": cut}}).json()
    hits = body["data"]["search"]["hits"]
    assert {h["fact"]["id"] for h in hits} == {tennis["ana"], tennis["club"]}
    assert all(h["relevance"] >= cut for h in hits)
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
        "/api/v1/search", headers={"X-Scope": scope}, json={"query": "tennis", "threshold": cut}
    )
    assert rest.status_code == 200
    results = rest.json()["results"]
    assert {r["memory"]["id"] for r in results} == {tennis["ana"], tennis["club"]}
    assert all(r["relevance_score"] >= cut for r in results)
    refused = http.post(
        "/api/v1/search", headers={"X-Scope": scope}, json={"query": "x", "threshold": -1}
    )
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "threshold"

    async def steps(session: ClientSession) -> dict[str, Any]:
        return ok(await session.call_tool("search", {"query": "tennis", "min_score": cut}))

    found = over_http(server_url, steps, scope=scope)
    assert {r["id"] for r in found["results"]} == {tennis["ana"], tennis["club"]}
    assert all(r["relevance"] >= cut for r in found["results"])


def test_the_newer_statement_of_the_same_thing_ranks_first(memory: Memory, scope: str) -> None:
    """A conversation that updates what it said: the update ranks above the original, though
    the original matches the question better, and takes its score."""
    march, april = datetime(2024, 3, 5, tzinfo=UTC), datetime(2024, 4, 9, tzinfo=UTC)
    said = {"subject": "user", "valid_from": march}
    original = put(
        memory,
        scope,
        "user: The average response time of the dashboard API is 400 ms.",
        session_id="2",
        turn=10,
        **said,
    )
    updated = put(
        memory,
        scope,
        "user: After the caching tweaks the average response time of the dashboard API has "
        "now improved to 250 ms.",
        session_id="3",
        turn=41,
        **{**said, "valid_from": april},
    )
    put(memory, scope, "user: The login page needs a new logo.", session_id="2", turn=12, **said)
    question = "What is the average response time of the dashboard API?"
    for fusion in (None, MODEL):
        plain = memory.search(
            scope, question, newer_first=False, track_access=False, fusion=fusion
        ).hits
        assert [h.fact.id for h in plain[:2]] == [original, updated]
        assert min(plain[0].relevance, plain[1].relevance) >= FLOOR
        ranked = memory.search(scope, question, track_access=False, fusion=fusion).hits
        assert [h.fact.id for h in ranked[:2]] == [updated, original]
        # It takes the original's score, in the same search (two searches read the clock
        # seconds apart on a loaded machine, and recency moves with it), and says whose.
        assert ranked[0].score == ranked[1].score
        assert ranked[0].score == pytest.approx(plain[0].score, rel=1e-4)
        assert ranked[0].relevance == pytest.approx(plain[1].relevance)
        assert ranked[0].updates == original and ranked[1].updates is None
        assert [h.score for h in ranked] == sorted((h.score for h in ranked), reverse=True)


def test_only_a_newer_statement_of_the_same_subject_that_says_what_changed_moves_up() -> None:
    """Two speakers saying things about one topic are not an update of each other; a hit below
    the floor is not taken to answer the query; a newer statement that does not say that
    anything changed may be about something else, and keeps its place."""
    older = Timed("a", 0.9, ("2024-03-05T00:00:00+00:00", 1))
    newer = Timed("b", 0.8, ("2024-04-09T00:00:00+00:00", 1))
    subject = {"a": "Caroline", "b": "Melanie"}
    relevance = {"a": 0.97, "b": 0.93}
    text = {"a": "The club opens at nine.", "b": "The club now opens at ten."}

    def updated(newer_id: str, older_id: str) -> bool:
        return updates(
            relevance[newer_id],
            relevance[older_id],
            subject[newer_id],
            subject[older_id],
            text[newer_id],
        )

    assert reorder([older, newer], updated) == [older, newer]
    subject["b"] = "Caroline"
    assert [t.id for t in reorder([older, newer], updated)] == ["b", "a"]
    text["b"] = "The club opens at ten."
    assert reorder([older, newer], updated) == [older, newer]
    text["b"] = "The club has moved its opening to ten."
    assert [t.id for t in reorder([older, newer], updated)] == ["b", "a"]
    relevance["b"] = FLOOR - 0.01
    assert reorder([older, newer], updated) == [older, newer]
