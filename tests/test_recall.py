"""Deep recall: the gate, the clamp, abstention, every no-op path and provider failures."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace

import pytest

from graph.config import LLMSettings
from graph.memory import Memory
from graph.recall import (
    ChatClient,
    DeepRecall,
    Grade,
    LLMError,
    LLMGrader,
    LLMTransformer,
    OfflineGrader,
    is_hard,
)
from graph.search import SearchOptions, rrf
from graph.write.facts import Fact
from tests.conftest import GraphQLClient
from tests.llm_standin import Reply, StandIn, serve

WRONG_SHAPE = json.dumps({"queries": "not a list"})
TRIP: list[dict[str, object]] = [
    {
        "text": "I met Nino at a wine bar in Tbilisi",
        "subject": "Nino",
        "session_id": "trip",
        "turn": 1,
    },
    {
        "text": "Nino recommended the sulfur baths in Abanotubani",
        "subject": "Nino",
        "predicate": "recommended",
        "object": "sulfur baths",
        "session_id": "trip",
        "turn": 2,
    },
    {"text": "The flight home was delayed by two hours", "session_id": "trip", "turn": 3},
    {"text": "Caroline is training for a marathon in the autumn"},
]


@pytest.fixture
def standin() -> Iterator[tuple[StandIn, LLMSettings]]:
    server, state, url = serve()
    # A timeout far above any answer of the in-process stand-in, however loaded the machine:
    # with 0.5 s, a slow but successful answer was taken for a failure. The "slow" case of the
    # fallback test sets its own, shorter than its reply's delay.
    settings = LLMSettings(
        base_url=url, api_key="sk-test", model="stand-in", timeout=30.0, max_retries=2
    )
    yield state, settings
    server.shutdown()


@pytest.fixture
def trip(memory: Memory, scope: str) -> str:
    for fact in TRIP:
        memory.remember(scope, dict(fact))
    return scope


class AlwaysInsufficient:
    def __init__(self) -> None:
        self.calls = 0

    def grade(self, query: str, facts: Sequence[Fact]) -> Grade:
        self.calls += 1
        return Grade(False, 0.1, "never enough", f"{query} again {self.calls}")


def ids(hits: Sequence[object]) -> list[str]:
    return [h.fact.id for h in hits]  # type: ignore[attr-defined]


def test_the_gate_lets_simple_lookups_through_and_flags_indirect_questions() -> None:
    assert not is_hard("Where does Jon work?")
    assert not is_hard("Caroline marathon")
    assert is_hard("What did the person I met in Tbilisi recommend?")
    assert is_hard("Which city did Jon live in before he moved to Lisbon?")


def test_without_providers_every_option_is_a_silent_no_op(memory: Memory, trip: str) -> None:
    engine = DeepRecall(memory)
    options = SearchOptions.build(top_k=3, track_access=False)
    plain = memory.search(trip, "Nino recommended", options=options)
    deep = engine.search(trip, "Nino recommended", options, multi_query=4, hyde=True)
    assert ids(deep.hits) == ids(plain.hits)
    looped = engine.search_iterative(
        trip, "What did the person I met in Tbilisi recommend?", options, force_hard=True
    )
    assert len(looped.passes) == 1 and looped.passes[0].grade is None
    assert not looped.abstained


def test_unconfigured_settings_build_no_network_providers(memory: Memory) -> None:
    assert not memory.settings.llm.configured
    assert memory.recall.transformer is None


def test_simple_lookups_take_exactly_one_pass(memory: Memory, trip: str) -> None:
    grader = AlwaysInsufficient()
    engine = DeepRecall(memory, grader=grader)
    result = engine.search_iterative(
        trip, "Caroline marathon", SearchOptions.build(top_k=3, track_access=False)
    )
    assert len(result.passes) == 1 and grader.calls == 0 and not result.hard
    forced = engine.search_iterative(
        trip,
        "Caroline marathon",
        SearchOptions.build(top_k=3, track_access=False),
        force_hard=True,
        max_iterations=2,
    )
    assert forced.hard and grader.calls == 2


@pytest.mark.parametrize(("asked", "made"), [(0, 1), (-3, 1), (2, 2), (99, 5)])
def test_iterations_are_clamped_and_insufficient_evidence_abstains(
    memory: Memory, trip: str, asked: int, made: int
) -> None:
    engine = DeepRecall(memory, grader=AlwaysInsufficient())
    result = engine.search_iterative(
        trip,
        "What did the person I met in Tbilisi recommend?",
        SearchOptions.build(top_k=2, track_access=False),
        max_iterations=asked,
    )
    assert len(result.passes) == made
    assert result.abstained
    assert len(result.hits) <= 2
    if made > 1:
        assert result.passes[1].query.endswith("again 1")


def test_the_offline_grader_reaches_the_fact_one_hop_away(memory: Memory, trip: str) -> None:
    engine = DeepRecall(memory, grader=OfflineGrader())
    result = engine.search_iterative(
        trip,
        "What did the person I met in Tbilisi recommend?",
        SearchOptions.build(top_k=3, track_access=False),
    )
    assert result.hard
    assert memory.get(trip, result.hits[0].fact.id) is not None
    texts = [h.fact.text for h in result.hits]
    assert any("sulfur baths" in t for t in texts)
    assert all(p.grade is not None for p in result.passes)


def test_multi_query_fuses_the_variants_from_one_model_call(
    memory: Memory, trip: str, standin: tuple[StandIn, LLMSettings]
) -> None:
    state, settings = standin
    state.script(Reply(json.dumps({"queries": ["flight delayed", "Caroline marathon"]})))
    engine = DeepRecall(memory, transformer=LLMTransformer(ChatClient(settings)))
    result = engine.search(
        trip, "sulfur baths", SearchOptions.build(top_k=3, track_access=False), multi_query=3
    )
    assert len(state.requests) == 1
    request = state.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "stand-in"
    options = SearchOptions.build(top_k=3, track_access=False)
    lists = [
        ids(memory.search(trip, q, options=options).hits)
        for q in ("sulfur baths", "flight delayed", "Caroline marathon")
    ]
    assert ids(result.hits) == [i for i, _ in rrf(lists)][:3]
    assert ids(result.hits) != lists[0]


def test_hyde_fuses_the_neighbours_of_a_hypothetical_answer(
    memory: Memory, trip: str, standin: tuple[StandIn, LLMSettings]
) -> None:
    state, settings = standin
    state.script(Reply("She is running a long-distance race this fall."))
    engine = DeepRecall(memory, transformer=LLMTransformer(ChatClient(settings)))
    result = engine.search(
        trip,
        "what is she preparing for",
        SearchOptions.build(top_k=2, track_access=False),
        hyde=True,
    )
    assert len(state.requests) == 1
    assert "Caroline is training for a marathon in the autumn" in [h.fact.text for h in result.hits]


@pytest.mark.parametrize(
    "reply",
    [
        Reply(delay=2.0),
        Reply(status=503),
        Reply(raw=b"{not json"),
        Reply("   "),
        Reply(WRONG_SHAPE),
    ],
    ids=["slow", "failing", "malformed-body", "empty", "wrong-shape"],
)
def test_provider_failures_fall_back_to_the_single_shot_result(
    memory: Memory, trip: str, standin: tuple[StandIn, LLMSettings], reply: Reply
) -> None:
    state, settings = standin
    state.default = reply
    if reply.delay:
        settings = replace(settings, timeout=reply.delay / 4)  # never waits the delay out
    client = ChatClient(settings)
    engine = DeepRecall(memory, transformer=LLMTransformer(client), grader=LLMGrader(client))
    options = SearchOptions.build(top_k=3, track_access=False)
    query = "What did the person I met in Tbilisi recommend?"
    plain = memory.search(trip, query, options=options)
    # A JSON object of the wrong shape is no list of queries, but it is text: HyDE would
    # search with it as its hypothetical answer, so that case asks for variants only.
    hyde = reply.content != WRONG_SHAPE
    deep = engine.search(trip, query, options, multi_query=3, hyde=hyde)
    assert ids(deep.hits) == ids(plain.hits)
    looped = engine.search_iterative(trip, query, options)
    assert ids(looped.hits) == ids(plain.hits)
    assert not looped.abstained and looped.passes[0].grade is None


def test_retries_are_bounded_and_only_for_transient_statuses(
    standin: tuple[StandIn, LLMSettings],
) -> None:
    state, settings = standin
    state.default = Reply(status=503)
    with pytest.raises(LLMError, match="HTTP 503"):
        ChatClient(settings).complete("s", "u")
    assert len(state.requests) == settings.max_retries + 1
    state.requests.clear()
    state.default = Reply(status=401)
    with pytest.raises(LLMError, match="HTTP 401"):
        ChatClient(settings).complete("s", "u")
    assert len(state.requests) == 1


def test_a_cancelled_call_stops_without_retrying(standin: tuple[StandIn, LLMSettings]) -> None:
    state, settings = standin
    state.default = Reply(status=503)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LLMError, match="cancelled"):
        ChatClient(settings).complete("s", "u", cancel=cancel)
    assert state.requests == []


def test_the_llm_grader_reads_a_verdict(standin: tuple[StandIn, LLMSettings]) -> None:
    state, settings = standin
    state.script(
        Reply(
            '```json\n{"sufficient": false, "score": 0.3, "reason": "who is the '
            'person?", "reformulation": "Nino recommendation"}\n```'
        )
    )
    grade = LLMGrader(ChatClient(settings)).grade("q", [])
    assert grade == Grade(False, 0.3, "who is the person?", "Nino recommendation")


ITERATIVE = """
query($scope: String!, $q: String!) {
  searchIterative(scope: $scope, query: $q, maxIterations: 9, forceHard: true) {
    abstained hard hits { fact { text } } passes { query count grade { sufficient } }
  }
  deepSearch(scope: $scope, query: $q, multiQuery: 3, hyde: true) { hits { fact { id } } }
}
"""


def test_deep_recall_through_graphql(gql: GraphQLClient, trip: str) -> None:
    data = gql.data(ITERATIVE, scope=trip, q="sulfur baths")
    looped = data["searchIterative"]
    assert looped["hard"] is True and looped["abstained"] is False
    assert looped["passes"][0]["query"] == "sulfur baths"
    assert looped["hits"][0]["fact"]["text"].startswith("Nino recommended")
    assert data["deepSearch"]["hits"]
