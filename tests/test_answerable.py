""" "Nothing here": every search says whether anything in the scope answers the query, on every
interface, against the real Neo4j and the real model (graph/search/answerable.py)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from factgraph_client import Client
from factgraph_client.langgraph import FactgraphStore
from graph.memory import Memory
from graph.search.answerable import SIGNS, answerability, shipped
from graph.search.candidates import Candidates
from tests.mcp_helpers import ok, over_http

FACTS = (
    "Carol lives in Madrid with her two daughters",
    "Carol works as a nurse at the city hospital",
    "Dan plays the trumpet in a jazz band on Fridays",
    "Dan moved to Lisbon last spring for a new job",
    "The team's standup meeting starts at half past nine",
    "Erin is learning Japanese with an app every evening",
    "Erin ran her first marathon in Berlin in September",
    "The quarterly report is due on the last Friday of March",
)
ANSWERED = "Which instrument does Dan play?"
ABSENT = "What is the name of Carol's pet parrot?"


@pytest.fixture
def people(memory: Memory, scope: str) -> str:
    memory.remember_many(scope, [{"text": text} for text in FACTS])
    return scope


def test_a_question_the_scope_answers_is_answerable_and_one_about_nothing_in_it_is_not(
    memory: Memory, people: str
) -> None:
    """In a small scope any fact about the same person clears a relevance cut ("what pet does
    Carol have?" kept "Carol lives in Madrid" at 0.63); the search as a whole tells them apart."""
    answered = memory.search(people, ANSWERED, track_access=False)
    absent = memory.search(people, ABSENT, track_access=False)
    assert answered.hits and absent.hits  # both have hits: the signal is not "no hits"
    assert answered.answerable is True
    assert absent.answerable is False
    assert absent.answerability < shipped().threshold <= answered.answerability


def test_no_hits_is_nothing_here(memory: Memory, scope: str) -> None:
    result = memory.search(scope, "anything at all", track_access=False)
    assert result.hits == []
    assert (result.answerable, result.answerability) == (False, 0.0)
    empty = Candidates(lists={}, briefs={}, facts={}, fulltext_exhaustive=True, vector_exact=True)
    assert answerability("anything", empty, []) == 0.0


def test_graphql_rest_and_mcp_answer_it(
    http: httpx.Client, server_url: str, memory: Memory, people: str
) -> None:
    query = (
        "query($s: String!, $q: String!) { search(scope: $s, query: $q) "
        "{ answerable answerability hits { fact { id } } } }"
    )
    for question, expected in ((ANSWERED, True), (ABSENT, False)):
        body = http.post(
            "/graphql", json={"query": query, "variables": {"s": people, "q": question}}
        )
        graphql = body.json()["data"]["search"]
        assert graphql["answerable"] is expected
        assert 0.0 <= graphql["answerability"] <= 1.0
        rest = http.post("/api/v1/search", headers={"X-Scope": people}, json={"query": question})
        assert rest.status_code == 200
        assert rest.json()["answerable"] is expected
        assert rest.json()["answerability"] == pytest.approx(graphql["answerability"], abs=1e-4)

    async def steps(session: ClientSession) -> list[dict[str, Any]]:
        return [
            ok(await session.call_tool("search", {"query": question}))
            for question in (ANSWERED, ABSENT)
        ]

    answered, absent = over_http(server_url, steps, scope=people)
    assert (answered["answerable"], absent["answerable"]) == (True, False)
    assert 0.0 <= absent["answerability"] < answered["answerability"] <= 1.0


def test_a_better_match_never_lowers_the_answerability() -> None:
    """The committed weights keep the signs the fit holds them to: unconstrained, LoCoMo's
    adversarial questions (made of the conversation's own words) taught the model that a
    better hit means less answerable, and a small scope's absent topics passed as answered."""
    model = shipped()
    assert len(model.weights) == len(SIGNS) + 1
    assert all(sign * weight >= 0 for sign, weight in zip(SIGNS, model.weights[1:], strict=True))
    assert 0.0 < model.threshold < 1.0


def test_the_python_client_and_the_langgraph_store_answer_it(
    server_url: str, people: str, other_scope: str
) -> None:
    with Client(server_url, scope=people, timeout=120) as fg:
        assert fg.search(ANSWERED).answerable is True
        absent = fg.search(ABSENT)
        assert absent.answerable is False and absent.hits
    with Client(server_url, scope=other_scope, timeout=120) as fg:
        store = FactgraphStore(fg)
        store.put(("notes",), "dan", {"text": "Dan plays the trumpet in a jazz band"})
        assert store.search(("notes",), query="Which instrument does Dan play?").answerable
        assert store.search(("notes",)).answerable is None  # a listing: no query to answer
