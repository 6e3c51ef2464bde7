"""GraphQL `search`: typed options, explained hits, related facts, and limits by field."""

from __future__ import annotations

from typing import Any

import pytest

from graph.memory import Memory
from tests.conftest import GraphQLClient

SEARCH = """
query Search($scope: String!, $text: String!, $options: SearchOptionsInput) {
  search(scope: $scope, query: $text, options: $options) {
    lucene
    hits {
      score relevance fused share importance recency decay updates
      fact { id text sessionId turn tags }
      sources { list rank score }
    }
    related { reason hitId fact { id turn } }
    weights { relevance importance recency }
  }
}
"""


@pytest.fixture
def chat(memory: Memory, scope: str) -> list[str]:
    lines = [
        "Let's plan the camping trip",
        "I can bring the big tent and two lanterns",
        "Great, I will pack the marshmallows",
        "Should we invite Noor as well?",
    ]
    return [
        memory.remember(
            scope, {"text": t, "session_id": "c1", "turn": i, "tags": ["camping"] if i else []}
        ).id
        for i, t in enumerate(lines)
    ]


def test_related_facts_are_looked_up_only_when_selected(
    gql: GraphQLClient, memory: Memory, scope: str, chat: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second round trip fetches the hits' facts either way; the turn window and the
    shared-tag scan are only asked of Neo4j when the document selects `related`."""
    sent: list[dict[str, Any]] = []
    read = memory.db.read_fast

    def spy(name: str, params: Any = None) -> Any:
        if name == "search_related":
            sent.append(dict(params))
        return read(name, params)

    monkeypatch.setattr(memory.db, "read_fast", spy)
    options: dict[str, Any] = {"topK": 1, "prevTurns": 1, "nextTurns": 1}
    # The words of turn 1 itself: "tent" alone also finds turn 0, whose passage holds it.
    text = "the big tent and two lanterns"
    hits_only = "query S($scope: String!, $text: String!, $options: SearchOptionsInput) {"
    hits_only += " search(scope: $scope, query: $text, options: $options)"
    hits_only += " { hits { fact { id text } } } }"
    data = gql.data(hits_only, scope=scope, text=text, options=options)
    assert data["search"]["hits"] == [
        {"fact": {"id": chat[1], "text": "I can bring the big tent and two lanterns"}}
    ]
    ((asked,),) = [sent]
    assert asked["hits"]["window"] == [] and asked["tag_limit"] == 0
    sent.clear()
    data = gql.data(SEARCH, scope=scope, text=text, options=options)
    ((asked,),) = [sent]
    assert asked["hits"]["window"] and asked["tag_limit"] == 10
    assert {r["fact"]["turn"] for r in data["search"]["related"]} >= {0, 2}


def test_search_returns_explained_hits_and_the_turn_window(
    gql: GraphQLClient, scope: str, chat: list[str]
) -> None:
    options: dict[str, Any] = {
        "topK": 1,
        "prevTurns": 1,
        "nextTurns": 1,
        "relatedLimit": 0,
        "passages": False,
    }
    data = gql.data(SEARCH, scope=scope, text="tent and lanterns", options=options)
    result = data["search"]
    assert result["lucene"] == "tent lanterns"
    (hit,) = result["hits"]
    assert hit["fact"]["id"] == chat[1]
    assert {s["list"] for s in hit["sources"]} == {"fulltext", "vector"}
    assert all(s["rank"] == 1 for s in hit["sources"])
    assert 0.0 < hit["relevance"] < 1.0 and hit["decay"] == 1.0
    assert hit["score"] == pytest.approx((1.0 + hit["importance"] + hit["recency"]) / 3)
    assert [(r["fact"]["turn"], r["reason"], r["hitId"]) for r in result["related"]] == [
        (0, "turn_window", chat[1]),
        (2, "turn_window", chat[1]),
    ]


def test_a_hits_parts_add_up_to_its_score(gql: GraphQLClient, scope: str, chat: list[str]) -> None:
    """What a person reads beside a hit (its share of the best fused score, importance,
    recency, decay, and the weights the search used) makes its score; relevance is apart."""
    options = {"weights": {"relevance": 2, "importance": 1, "recency": 0.5}, "topK": 4}
    result = gql.data(SEARCH, scope=scope, text="tent marshmallows Noor", options=options)["search"]
    w = result["weights"]
    assert w == {"relevance": 2.0, "importance": 1.0, "recency": 0.5}
    hits = result["hits"]
    assert len(hits) >= 2 and max(h["share"] for h in hits) == pytest.approx(1.0)
    for hit in hits:
        assert hit["updates"] is None
        parts = w["relevance"] * hit["share"] + w["importance"] * hit["importance"]
        parts += w["recency"] * hit["recency"]
        assert hit["score"] == pytest.approx(parts / 3.5 * hit["decay"])


def test_nested_options_are_typed(gql: GraphQLClient, scope: str, chat: list[str]) -> None:
    options = {
        "topK": 2,
        "mode": "FULLTEXT",
        "fusion": {"method": "WEIGHTED", "k": 10, "fulltext": 2.0},
        "weights": {"relevance": 1, "importance": 0, "recency": 0},
        "decay": {"tauDays": 30},
        "tags": ["camping"],
        "excludeIds": [chat[2]],
        "expandHops": 1,
        "passages": False,
    }
    hits = gql.data(SEARCH, scope=scope, text="marshmallows tent", options=options)["search"][
        "hits"
    ]
    assert [h["fact"]["id"] for h in hits] == [chat[1]]
    assert hits[0]["fused"] == pytest.approx(2.0 / 11)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"topK": 0}, "topK"),
        ({"topK": 101}, "topK"),
        ({"candidateTopK": 0}, "candidateTopK"),
        ({"prevTurns": 99}, "prevTurns"),
        ({"decay": {"tauDays": -1}}, "decay.tauDays"),
        ({"weights": {"relevance": 0, "importance": 0, "recency": 0}}, "weights"),
        ({"partitions": []}, "partitions"),
        ({"subjectBoost": -0.1}, "subjectBoost"),
        ({"fusion": {"method": "COMBSUM", "passage": -1}}, "fusion.passage"),
    ],
)
def test_bad_options_are_refused_with_their_field(
    gql: GraphQLClient, scope: str, options: dict[str, Any], field: str
) -> None:
    body = gql(SEARCH, scope=scope, text="tent", options=options)
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["field"] == field


def test_passages_fusion_and_the_subject_boost_are_options(
    gql: GraphQLClient, scope: str, chat: list[str]
) -> None:
    """Defaults: COMBSUM over full-text, passages and vectors; each part can be asked off."""
    text = "Noor marshmallows"
    default = gql.data(SEARCH, scope=scope, text=text)["search"]["hits"]
    lists = {s["list"] for h in default for s in h["sources"]}
    plain = {"passages": False, "subjectBoost": 0, "fusion": {"method": "COMBSUM"}}
    without = gql.data(SEARCH, scope=scope, text=text, options=plain)["search"]["hits"]
    rrf = gql.data(SEARCH, scope=scope, text=text, options={"fusion": {"k": 60}})["search"]

    assert lists == {"fulltext", "passage", "vector"}
    assert {s["list"] for h in without for s in h["sources"]} == {"fulltext", "vector"}
    assert default[0]["fused"] <= 3.0  # three lists, each normalised to 0..1
    top = rrf["hits"][0]
    assert top["fused"] == pytest.approx(sum(1 / (60 + s["rank"]) for s in top["sources"]))


def test_hostile_and_empty_queries_answer_cleanly(
    gql: GraphQLClient, scope: str, chat: list[str]
) -> None:
    for query in ['tent" OR scope:*', "", "}{)(][", "x" * 3999]:
        result = gql.data(SEARCH, scope=scope, text=query)["search"]
        assert all(h["fact"]["id"] in chat for h in result["hits"])
    body = gql(SEARCH, scope=scope, text="x" * 4001)
    assert body["errors"][0]["extensions"]["field"] == "query"
