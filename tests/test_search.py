"""Hybrid search through the Python API, against the real Neo4j and the real model."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.contexts import get_context
from graph.errors import ValidationError
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.search import Hit, get_reranker, recorder, set_reranker
from graph.storage.db import Database
from graph.write.facts import Fact


def put(memory: Memory, scope: str, text: str, **fields: Any) -> str:
    return memory.remember(scope, {"text": text, **fields}).id


def texts(hits: Sequence[Hit]) -> list[str]:
    return [h.fact.text for h in hits]


@pytest.fixture
def garden(memory: Memory, scope: str) -> dict[str, str]:
    """A small scope with distinct topics."""
    return {
        "violin": put(memory, scope, "Maya practises the violin every evening", subject="Maya"),
        "sourdough": put(memory, scope, "Tom bakes sourdough bread on Sundays", subject="Tom"),
        "lisbon": put(memory, scope, "The team offsite will be held in Lisbon in May"),
        "bike": put(memory, scope, "Priya commutes on a blue bicycle", subject="Priya"),
    }


def test_finds_the_matching_fact_first_and_explains_it(
    memory: Memory, scope: str, garden: dict[str, str]
) -> None:
    result = memory.search(scope, "Who plays the violin?", top_k=3)
    best = result.hits[0]
    assert best.fact.id == garden["violin"]
    lists = {s.list: s for s in best.sources}
    assert lists["fulltext"].rank == 1 and lists["vector"].rank == 1
    assert 0 < lists["vector"].score <= 1
    # The best of every list stands at 1 in the fused order; its relevance is its own chance
    # of answering the query, whatever else was found.
    assert 0.0 < best.relevance < 1.0
    assert best.importance == pytest.approx(0.5)
    assert best.score == pytest.approx((1.0 + best.importance + best.recency) / 3)
    assert best.decay == 1.0
    assert len(result.hits) == 3
    assert result.lucene == "plays violin"


def test_modes_use_one_list_each(memory: Memory, scope: str, garden: dict[str, str]) -> None:
    fulltext = memory.search(scope, "sourdough bread", mode="fulltext")
    assert {s.list for h in fulltext.hits for s in h.sources} == {"fulltext"}
    assert texts(fulltext.hits) == ["Tom bakes sourdough bread on Sundays"]
    vector = memory.search(scope, "baking loaves", mode="vector", top_k=2)
    assert {s.list for h in vector.hits for s in h.sources} == {"vector"}
    assert vector.hits[0].fact.id == garden["sourdough"]


def test_other_scopes_are_invisible(
    memory: Memory, scope: str, other_scope: str, garden: dict[str, str]
) -> None:
    put(memory, other_scope, "Maya's violin teacher lives in Vienna", subject="Maya")
    hits = memory.search(scope, "violin teacher Vienna", top_k=10).hits
    assert {h.fact.scope for h in hits} == {scope}
    assert memory.search(other_scope, "sourdough", mode="fulltext").hits == []


def test_status_quarantined_only_on_request_and_retired_never(memory: Memory, scope: str) -> None:
    live = put(memory, scope, "Kira keeps bees on the roof")
    doubtful = put(memory, scope, "Kira secretly owns a submarine", trusted=False)
    gone = put(memory, scope, "Kira collects antique typewriters")
    memory.forget(scope, gone)
    default = {h.fact.id for h in memory.search(scope, "Kira", top_k=10).hits}
    assert default == {live}
    wider = {
        h.fact.id for h in memory.search(scope, "Kira", top_k=10, include_quarantined=True).hits
    }
    assert wider == {live, doubtful}


def test_partitions_and_tags_filter_both_lists(memory: Memory, scope: str) -> None:
    work = put(memory, scope, "Standup moved to 9:30", partition="work", tags=["meeting", "team"])
    put(memory, scope, "Standup comedy night on Friday", partition="home", tags=["meeting"])
    put(memory, scope, "Standup desk arrives Monday", partition="work", tags=["team"])
    hits = memory.search(scope, "standup", partitions=["work"], tags=["meeting", "team"]).hits
    assert [h.fact.id for h in hits] == [work]
    both = memory.search(scope, "standup", partitions=["work", "home"], tags=["meeting"]).hits
    assert len(both) == 2
    assert memory.search(scope, "standup", tags=["nope"]).hits == []


def test_expired_facts_are_left_out(memory: Memory, scope: str) -> None:
    now = datetime.now(UTC)
    put(memory, scope, "The door code is 4512", expires_at=now - timedelta(minutes=1))
    kept = put(memory, scope, "The wifi code is 7781", expires_at=now + timedelta(days=1))
    assert [h.fact.id for h in memory.search(scope, "code", top_k=5).hits] == [kept]


def test_as_of_returns_what_was_valid_then(memory: Memory, scope: str) -> None:
    t0 = datetime(2020, 1, 1, tzinfo=UTC)
    old = put(memory, scope, "Sam lives in Oslo", valid_from=t0, valid_to=t0 + timedelta(days=365))
    new = put(memory, scope, "Sam lives in Bergen", valid_from=t0 + timedelta(days=365))
    future = put(
        memory, scope, "Sam will live in Tromso", valid_from=datetime(2999, 1, 1, tzinfo=UTC)
    )

    def at(when: datetime) -> set[str]:
        return {h.fact.id for h in memory.search(scope, "Sam lives", top_k=10, as_of=when).hits}

    assert at(t0 + timedelta(days=10)) == {old}
    assert at(t0 + timedelta(days=365)) == {new}  # valid_to is exclusive
    assert at(t0 - timedelta(days=1)) == set()
    assert future in {h.fact.id for h in memory.search(scope, "Sam", top_k=10).hits}


def test_as_of_sees_superseded_history(memory: Memory, scope: str) -> None:
    t0 = datetime(2021, 3, 1, tzinfo=UTC)
    first = put(memory, scope, "Ana's manager is Lee", valid_from=t0)
    second = memory.supersede(
        scope, first, {"text": "Ana's manager is Ray", "valid_from": t0 + timedelta(days=30)}
    ).fact.id
    now_ids = {h.fact.id for h in memory.search(scope, "Ana manager", top_k=10).hits}
    assert now_ids == {second}
    then = memory.search(scope, "Ana manager", top_k=10, as_of=t0 + timedelta(days=1)).hits
    assert [h.fact.id for h in then] == [first]


def test_exclude_ids_drops_facts_from_every_list(
    memory: Memory, scope: str, garden: dict[str, str]
) -> None:
    hits = memory.search(scope, "violin", top_k=10, exclude_ids=[garden["violin"]]).hits
    assert garden["violin"] not in {h.fact.id for h in hits}
    assert len(hits) == 3


def test_decay_uses_the_injected_clock_and_deletes_nothing(
    db: Database, embedder: Embedder, scope: str
) -> None:
    t0 = datetime(2025, 6, 1, tzinfo=UTC)
    then = Memory(db, embedder, clock=lambda: t0)
    old = put(then, scope, "Lena repaired the garden fence", recorded_at=t0 - timedelta(days=30))
    fresh = put(then, scope, "Lena painted the garden shed", recorded_at=t0)
    later = Memory(db, embedder, clock=lambda: t0 + timedelta(days=1))
    result = later.search(scope, "Lena garden fence", top_k=5, decay={"tau_days": 2.0})
    by_id = {h.fact.id: h for h in result.hits}
    assert by_id[old].decay == pytest.approx(math.exp(-31 / 2.0))
    assert by_id[fresh].decay == pytest.approx(math.exp(-1 / 2.0))
    assert [h.fact.id for h in result.hits] == [fresh, old]
    plain = later.search(
        scope, "Lena garden fence", top_k=5, weights={"recency": 0}, track_access=False
    )
    assert plain.hits[0].fact.id == old  # without decay or recency, relevance wins
    assert later.get(scope, old) is not None


def test_weights_move_importance_and_recency(memory: Memory, scope: str) -> None:
    low = put(memory, scope, "Otto likes green tea with honey", importance=1)
    high = put(memory, scope, "Otto is allergic to peanuts", importance=10)
    relevance_only = memory.search(
        scope, "green tea honey", weights={"importance": 0, "recency": 0}, track_access=False
    ).hits
    assert relevance_only[0].fact.id == low
    assert relevance_only[0].score == pytest.approx(1.0)
    importance_only = memory.search(
        scope, "green tea honey", weights={"relevance": 0, "recency": 0}, track_access=False
    ).hits
    assert importance_only[0].fact.id == high
    assert importance_only[0].score == pytest.approx(1.0)


def test_weighted_fusion_prefers_the_heavier_list(memory: Memory, scope: str) -> None:
    put(memory, scope, "Quinn adopted a retriever puppy")
    put(memory, scope, "Quinn's dog chews slippers")
    rrf = memory.search(scope, "Quinn dog", top_k=2, fusion={"method": "rrf"})
    equal = memory.search(
        scope, "Quinn dog", top_k=2, fusion={"method": "weighted", "fulltext": 1, "vector": 1}
    )
    assert [h.fused for h in rrf.hits] == pytest.approx([h.fused for h in equal.hits])
    ft_heavy = memory.search(
        scope, "Quinn dog", top_k=2, fusion={"method": "weighted", "vector": 0}
    )
    for hit in ft_heavy.hits:
        ft = [s for s in hit.sources if s.list == "fulltext"]
        assert hit.fused == pytest.approx(1 / (60 + ft[0].rank) if ft else 0.0)


def test_expand_hops_fuses_in_facts_sharing_an_entity(memory: Memory, scope: str) -> None:
    seed = put(memory, scope, "Zed adopted a parrot named Kiwi", subject="Zed", object="Kiwi")
    linked = put(memory, scope, "The vet said the bird needs more seeds", subject="Kiwi")
    put(memory, scope, "Unrelated note about tax forms")
    plain = memory.search(scope, "Zed parrot", top_k=3, mode="fulltext")
    assert linked not in {h.fact.id for h in plain.hits}
    expanded = memory.search(scope, "Zed parrot", top_k=3, mode="fulltext", expand_hops=1)
    by_id = {h.fact.id: h for h in expanded.hits}
    assert [s.list for s in by_id[seed].sources] == ["fulltext"]
    assert [s.list for s in by_id[linked].sources] == ["graph"]


def test_turn_window_returns_adjacent_turns_once(
    memory: Memory, scope: str, other_scope: str
) -> None:
    lines = [
        "Hi there",
        "How was the weekend?",
        "We hiked up to the glacier lake",
        "My boots gave me blisters though",
        "Ouch, get some moleskin",
        "Good idea, thanks",
    ]
    ids = [put(memory, scope, text, session_id="s1", turn=i) for i, text in enumerate(lines)]
    put(memory, scope, "Other session turn about a glacier", session_id="s2", turn=3)
    put(memory, other_scope, "Leaked glacier turn", session_id="s1", turn=1)
    result = memory.search(
        scope, "glacier lake hike", top_k=1, mode="fulltext", prev_turns=1, next_turns=2
    )
    assert [h.fact.id for h in result.hits] == [ids[2]]
    window = [r for r in result.related if r.reason == "turn_window"]
    assert [r.fact.id for r in window] == [ids[1], ids[3], ids[4]]
    assert {r.hit_id for r in window} == {ids[2]}
    none = memory.search(scope, "glacier lake hike", top_k=1, mode="fulltext")
    assert none.related == []


def test_windows_of_neighbouring_hits_do_not_repeat_or_include_hits(
    memory: Memory, scope: str
) -> None:
    words = ["alpha", "bravo", "charlie", "delta", "echo"]
    ids = [
        put(memory, scope, f"turn {w} marker", session_id="x", turn=i) for i, w in enumerate(words)
    ]
    result = memory.search(
        scope, "bravo charlie", top_k=2, mode="fulltext", prev_turns=2, next_turns=2
    )
    hit_ids = {h.fact.id for h in result.hits}
    assert hit_ids == {ids[1], ids[2]}
    related = [r.fact.id for r in result.related]
    assert len(related) == len(set(related))
    assert set(related) == {ids[0], ids[3], ids[4]}


def test_related_carries_facts_sharing_tags(memory: Memory, scope: str) -> None:
    hit = put(memory, scope, "Flight to Tokyo departs at 07:40", tags=["trip"])
    same = put(memory, scope, "Hotel booked near Shinjuku station", tags=["trip"])
    put(memory, scope, "Dentist appointment on Tuesday", tags=["health"])
    result = memory.search(scope, "flight departs", top_k=1, mode="fulltext")
    assert [h.fact.id for h in result.hits] == [hit]
    assert [(r.fact.id, r.reason) for r in result.related] == [(same, "shared_tag")]
    assert memory.search(scope, "flight departs", top_k=1, related_limit=0).related == []


def test_shared_tag_facts_the_filters_exclude_leave_room_for_the_next_ones(
    memory: Memory, scope: str
) -> None:
    """The shared-tag list is ordered before it is filtered (cypher/search_related.cypher):
    facts it may not show, however high they would stand, are skipped and the next ones fill
    the list up to its limit, in order."""
    hit = put(memory, scope, "Flight to Tokyo departs at 07:40", tags=["trip"], partition="p")
    gone = put(
        memory, scope, "Visa for Japan approved", tags=["trip"], importance=10, partition="p"
    )
    elsewhere = put(memory, scope, "Packing list for Tokyo", tags=["trip"], importance=9)
    kept = [
        put(memory, scope, text, tags=["trip"], importance=importance, partition="p")
        for text, importance in [
            ("Hotel booked near Shinjuku station", 7),
            ("Rail pass bought for two weeks", 6),
            ("Sushi class on the third evening", 5),
        ]
    ]
    memory.forget(scope, gone)
    result = memory.search(
        scope, "flight departs", top_k=1, mode="fulltext", partitions=["p"], related_limit=2
    )
    assert [h.fact.id for h in result.hits] == [hit]
    related = [r.fact.id for r in result.related]
    assert gone not in related and elsewhere not in related
    assert related == kept[:2]


def test_returned_facts_get_their_access_recorded(
    db: Database, embedder: Embedder, scope: str
) -> None:
    t0 = datetime(2025, 2, 2, 12, 0, tzinfo=UTC)
    clocked = Memory(db, embedder, clock=lambda: t0)
    fid = put(clocked, scope, "Iris waters the ferns on Thursdays")
    other = put(clocked, scope, "Completely different: quarterly invoices")
    clocked.search(scope, "ferns Thursdays", top_k=1, mode="fulltext")
    clocked.search(scope, "Iris ferns", top_k=1, mode="fulltext")
    assert recorder(db).flush()
    fact = clocked.get(scope, fid)
    assert fact is not None and fact.access_count == 2 and fact.last_accessed_at == t0
    untouched = clocked.get(scope, other)
    assert untouched is not None and untouched.access_count == 0
    clocked.search(scope, "Iris ferns", top_k=1, mode="fulltext", track_access=False)
    assert recorder(db).flush()
    again = clocked.get(scope, fid)
    assert again is not None and again.access_count == 2


def test_context_id_records_the_returned_ids(
    memory: Memory, db: Database, scope: str, garden: dict[str, str]
) -> None:
    result = memory.search(scope, "bicycle commute", top_k=2, context_id="chat-1")
    held = get_context(db, scope, "chat-1")
    assert list(held.recall_selected_ids) == [h.fact.id for h in result.hits]
    follow_up = memory.search(scope, "bicycle commute", top_k=2, exclude_ids=held.exclude_ids)
    assert not {h.fact.id for h in follow_up.hits} & set(held.exclude_ids)


@pytest.mark.parametrize(
    "query",
    [
        'title:violin AND (bread OR "unbalanced',
        "*",
        "?",
        "\\",
        "violin~2 /reg.*ex/ ^3 {a TO b} [x TO y]",
        "' OR 1=1 --",
        "MATCH (n) DETACH DELETE n",
        "AND OR NOT",
        "ünïcødé 🎻 violín",
        "\u200b\u202e\ufeff",
        "violin " * 500,
    ],
)
def test_hostile_queries_are_just_text(
    memory: Memory, scope: str, garden: dict[str, str], query: str
) -> None:
    result = memory.search(scope, query, top_k=4)
    assert len(result.hits) <= 4
    assert {h.fact.scope for h in result.hits} <= {scope}
    assert memory.get(scope, garden["violin"]) is not None


def test_empty_and_oversized_queries(memory: Memory, scope: str, garden: dict[str, str]) -> None:
    assert memory.search(scope, "").hits == []
    assert memory.search(scope, "   \n").hits == []
    stopwords = memory.search(scope, "what is the", top_k=2)
    assert stopwords.lucene == "" and len(stopwords.hits) == 2
    with pytest.raises(ValidationError) as caught:
        memory.search(scope, "x" * 4001)
    assert caught.value.field == "query"
    with pytest.raises(ValidationError):
        memory.search("", "violin")


class Reverse:
    """A reranker that turns the fused order upside down."""

    name = "reverse"

    def rerank(
        self, query: str, candidates: Sequence[tuple[Fact, float]]
    ) -> list[tuple[Fact, float]]:
        n = len(candidates)
        return [(fact, float(n - i)) for i, (fact, _) in enumerate(reversed(candidates))]


@pytest.fixture
def reverse() -> Iterator[Reverse]:
    previous = set_reranker(Reverse())
    yield Reverse()
    set_reranker(previous)


def test_the_active_reranker_decides_relevance(
    memory: Memory, scope: str, garden: dict[str, str]
) -> None:
    before = memory.search(scope, "violin", top_k=4, weights={"importance": 0, "recency": 0})
    assert get_reranker().name == "fusion"
    previous = set_reranker(Reverse())
    try:
        assert get_reranker().name == "reverse"
        after = memory.search(scope, "violin", top_k=4, weights={"importance": 0, "recency": 0})
    finally:
        set_reranker(previous)
    assert get_reranker().name == "fusion"
    assert after.hits[-1].fact.id == before.hits[0].fact.id == garden["violin"]


def test_a_scope_whose_name_extends_another_stays_apart(memory: Memory, scope: str) -> None:
    twin = f"{scope}-twin"
    try:
        mine = put(memory, scope, "Harbour ferry timetable for winter")
        put(memory, twin, "Harbour ferry timetable for summer")
        for mode in ("fulltext", "vector", "hybrid"):
            hits = memory.search(scope, "harbour ferry timetable", mode=mode, top_k=10).hits
            assert [h.fact.id for h in hits] == [mine], mode
    finally:
        memory.db.write("scope_delete", {"scope": twin})


class Keep:
    """A reranker that reads the facts it is given and keeps their order."""

    name = "keep"

    def __init__(self) -> None:
        self.seen: list[Fact] = []

    def rerank(
        self, query: str, candidates: Sequence[tuple[Fact, float]]
    ) -> list[tuple[Fact, float]]:
        self.seen.extend(fact for fact, _ in candidates)
        return list(candidates)


def test_hits_are_the_same_whether_candidates_come_as_briefs_or_whole_facts(
    memory: Memory, scope: str
) -> None:
    """The default reranker ranks on briefs and fetches only the hits' facts; a reranker that
    reads facts gets whole ones. Both give the same hits, facts and related facts."""
    for turn, text in enumerate(
        ["Packing list for the Tokyo trip", "Flight to Tokyo departs at 07:40", "Taxi at 05:30"]
    ):
        put(memory, scope, text, session_id="s1", turn=turn, tags=["trip"], subject="Ana")
    put(memory, scope, "Hotel near Shinjuku station for the trip", tags=["trip"], importance=9)
    asked: dict[str, Any] = {"top_k": 2, "prev_turns": 1, "track_access": False}
    briefs = memory.search(scope, "Tokyo flight", **asked)
    keep = Keep()
    previous = set_reranker(keep)
    try:
        whole = memory.search(scope, "Tokyo flight", **asked)
    finally:
        set_reranker(previous)
    assert {f.text for f in keep.seen} >= {"Flight to Tokyo departs at 07:40"}
    assert all(f.subject == "Ana" for f in keep.seen if f.session_id == "s1")

    def same(h: Hit) -> tuple[Any, ...]:  # recency moves with the clock between the searches
        return h.fact, h.relevance, h.fused, h.importance, h.decay, h.sources

    assert len(briefs.hits) == 2
    assert [same(h) for h in briefs.hits] == [same(h) for h in whole.hits]
    assert briefs.related and briefs.related == whole.related
    assert briefs.hits[0].fact == memory.get(scope, briefs.hits[0].fact.id)


def test_a_hit_purged_between_the_two_round_trips_is_left_out(
    memory: Memory, scope: str, garden: dict[str, str]
) -> None:
    from graph.search.candidates import fetch
    from graph.search.engine import order
    from graph.search.options import SearchOptions
    from graph.search.related import finish

    now = datetime.now(UTC)
    options = SearchOptions(top_k=2, related_limit=0)
    found = fetch(
        memory.db, scope, options, lucene="violin OR sourdough", vector=None, now=now, full=False
    )
    assert found.facts == {} and garden["violin"] in found.briefs
    top = order("violin", found, options, now, get_reranker())[:2]
    assert memory.purge(scope, garden["violin"])
    hits, related, _ = finish(memory.db, scope, top, found, options, now)
    assert [h.fact.id for h in hits] == [s.id for s in top if s.id != garden["violin"]]
    assert hits and related == []


def test_the_briefs_carry_each_candidates_text_length(
    memory: Memory, scope: str, garden: dict[str, str]
) -> None:
    """Ranking reads a candidate's length (a word match in a long text counts less) from the
    brief the candidate query ships, without its text."""
    from graph.search.candidates import fetch
    from graph.search.options import SearchOptions

    found = fetch(
        memory.db,
        scope,
        SearchOptions(),
        lucene="violin OR sourdough",
        vector=None,
        now=datetime.now(UTC),
        full=False,
    )
    assert found.briefs
    for fid, brief in found.briefs.items():
        fact = memory.get(scope, fid)
        assert fact is not None and brief.chars == len(fact.text) > 0
