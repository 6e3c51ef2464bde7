"""Search's fast read paths return the same facts as a plain read (issue 8 speed work).

Search returns datetimes as Cypher strings (the driver's DateTime hydration was the slowest part
of a search) and looks at a bounded number of facts per shared tag; neither may change what a
caller sees: instants, zones and the facts themselves.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from graph.bulk.autocommit import delete_scope
from graph.memory import Memory
from graph.search import recorder
from graph.write.facts import Fact


def same_times(a: Fact, b: Fact) -> None:
    for name in ("valid_from", "valid_to", "recorded_at", "updated_at", "expires_at"):
        assert getattr(a, name) == getattr(b, name), name


def test_a_named_zone_is_stored_by_name(memory: Memory, scope: str) -> None:
    """zoneinfo times reach Neo4j as the same instant in the same named zone."""
    berlin = datetime(2024, 7, 1, 9, 0, 0, 250000, tzinfo=ZoneInfo("Europe/Berlin"))
    fact = memory.remember(scope, {"text": "The ferry leaves at nine", "valid_from": berlin})
    (row,) = memory.db.read_tx(
        lambda tx: list(
            tx.run(
                "MATCH (f:Fact {id: $id}) RETURN f.valid_from.timezone AS zone, "
                "f.valid_from.epochMillis AS millis",
                id=fact.id,
            )
        )
    )
    assert row["zone"] == "Europe/Berlin"
    assert row["millis"] == int(berlin.timestamp() * 1000)
    assert fact.valid_from == berlin


def test_hits_and_related_facts_carry_exact_datetimes(memory: Memory, scope: str) -> None:
    berlin = datetime(2024, 3, 5, 14, 30, 15, 123456, tzinfo=ZoneInfo("Europe/Berlin"))
    hit = memory.remember(
        scope,
        {
            "text": "The glacier walk starts at the blue hut",
            "valid_from": berlin,
            "expires_at": datetime(2031, 1, 2, 3, 4, 5, 678901, tzinfo=ZoneInfo("UTC")),
            "session_id": "trek",
            "turn": 1,
        },
    )
    after = memory.remember(
        scope, {"text": "Bring crampons and a thermos", "session_id": "trek", "turn": 2}
    )
    result = memory.search(scope, "glacier walk blue hut", top_k=1, next_turns=1)
    (found,) = result.hits
    assert found.fact.id == hit.id
    stored = memory.get(scope, hit.id)
    assert stored is not None
    same_times(found.fact, stored)
    assert found.fact.valid_from == berlin
    assert found.fact.valid_from.utcoffset() == berlin.utcoffset()
    (beside,) = result.related
    assert beside.fact.id == after.id
    same_times(beside.fact, after)


def test_last_access_comes_back_as_the_instant_it_was_recorded(memory: Memory, scope: str) -> None:
    fact = memory.remember(scope, {"text": "The spare key hangs behind the kitchen door"})
    memory.search(scope, "spare key kitchen", top_k=1)
    assert recorder(memory.db).flush()
    stored = memory.get(scope, fact.id)
    assert stored is not None and stored.last_accessed_at is not None
    (again,) = memory.search(scope, "spare key kitchen", top_k=1, track_access=False).hits
    assert again.fact.last_accessed_at == stored.last_accessed_at


def test_a_popular_tag_still_yields_related_facts(memory: Memory, scope: str) -> None:
    for i in range(30):
        memory.remember(scope, {"text": f"Grocery item number {i}: oat flakes", "tags": ["shop"]})
    hit = memory.remember(scope, {"text": "Buy saffron for the paella", "tags": ["shop"]})
    result = memory.search(scope, "saffron paella", top_k=1, related_limit=5)
    assert [h.fact.id for h in result.hits] == [hit.id]
    assert len(result.related) == 5
    assert all(r.reason == "shared_tag" and r.hit_id == hit.id for r in result.related)
    assert all("shop" in r.fact.tags for r in result.related)


def test_expansion_through_a_much_mentioned_entity_stays_within_the_candidate_budget(
    memory: Memory, scope: str
) -> None:
    seed = memory.remember(
        scope, {"text": "Noor keeps bees on the allotment", "subject": "Noor"}
    ).id
    for i in range(8):
        memory.remember(scope, {"text": f"Noor note {i} about nothing", "subject": "Noor"})
    result = memory.search(
        scope, "bees allotment", mode="fulltext", expand_hops=1, candidate_top_k=3, top_k=10
    )
    graph = [h for h in result.hits if any(s.list == "graph" for s in h.sources)]
    assert seed in [h.fact.id for h in result.hits]
    assert 1 <= len(graph) <= 3
    assert all(h.fact.subject == "Noor" for h in graph)


def test_a_search_asking_its_passages_beside_the_other_lists_ranks_as_one_query_does(
    memory: Memory, scope: str
) -> None:
    """A search asks its passage list beside the embedding and the other lists (the default,
    FACTGRAPH_SEARCH_OVERLAP); the hits, their scores and the related facts are those of the
    one-query search, with entity expansion and in full-text mode too."""
    from graph.search import search as hybrid_search
    from graph.search.options import SearchOptions

    texts = [
        "Melanie moved from Sweden to Lisbon last spring",
        "Caroline paints sunsets by the lake",
        "Melanie signed up for a pottery class",
        "The pottery class meets on Thursday evenings",
        "Caroline adopted a grey cat called Pixel",
        "Melanie's sister still lives in Gothenburg",
    ]
    for turn, text in enumerate(texts):
        memory.remember(
            scope,
            {"text": text, "session_id": "s1", "turn": turn, "tags": ["chat"]},
            pipeline=False,
        )
    for query, extra in (
        ("where did Melanie move from?", {}),
        ("pottery on Thursdays", {"tags": ["chat"]}),
        ("a cat", {"prev_turns": 1}),
        ("Melanie", {"expand_hops": 1}),
        ("pottery class", {"mode": "fulltext"}),
    ):
        options = SearchOptions.build(track_access=False, **extra)
        now = memory.clock()  # one instant for both, so recency scores the same

        def frozen(at: datetime = now) -> datetime:
            return at

        runs = [
            hybrid_search(
                memory.db, memory.embedder, scope, query, options, clock=frozen, overlap=o
            )
            for o in (True, False)
        ]
        overlapped, single = (
            [(h.fact.id, round(h.score, 9), h.sources) for h in r.hits] for r in runs
        )
        assert overlapped and overlapped == single, query
        assert any(s.list == "passage" for h in runs[0].hits for s in h.sources), query
        assert [f.fact.id for f in runs[0].related] == [f.fact.id for f in runs[1].related]


def test_a_question_of_any_length_and_any_number_of_hits_reuses_the_search_plans(
    memory: Memory, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neo4j plans a query again for each new size of a string or list parameter (600-800 ms
    for the candidate query at 100,000 facts): the question's Lucene queries and the hits' ids
    travel inside maps, so a one-word question with one hit and a long one with ten send every
    search query parameters of the same sizes."""
    for n in range(12):
        memory.remember(
            scope, {"text": f"Ada tunes the cello before rehearsal {n}"}, pipeline=False
        )
    sent: list[tuple[str, list[tuple[str, int]]]] = []
    read = memory.db.read_fast

    def spy(name: str, params: Any = None) -> Any:
        sizes = {k: len(v) for k, v in dict(params or {}).items() if isinstance(v, str | list)}
        sent.append((name, sorted(sizes.items())))
        return read(name, params)

    monkeypatch.setattr(memory.db, "read_fast", spy)
    short = memory.search(scope, "cello", top_k=1)
    first = sorted(sent)
    sent.clear()
    long = memory.search(
        scope,
        "when does Ada tune her cello before the long rehearsal in the old town hall by the river",
        top_k=10,
    )
    assert (len(short.hits), len(long.hits)) == (1, 10)
    assert {name for name, _ in first} == {"search_candidates", "search_related", "standing_near"}
    assert sorted(sent) == first


def test_search_queries_are_planned_once_whatever_the_scope_and_filters(
    memory: Memory, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Neo4j keys its plan cache on each top-level string and list parameter's length (in
    coarse buckets), and planning the candidate query takes a second or more. So no such
    parameter of a search query may vary with the scope's name, the tags, the partitions,
    the excluded ids or the query text: they travel inside maps (`$filter`, `$text`, `$hits`).
    """
    long_scope = f"{scope}-whose-name-is-much-longer-than-the-first-one"
    sent: dict[str, list[dict[str, Any]]] = {}
    read_fast = memory.db.read_fast

    def recording(name: str, params: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        sent.setdefault(name, []).append(params)
        return read_fast(name, params, *args, **kwargs)

    try:
        for where in (scope, long_scope):
            memory.remember(where, {"text": "Melanie paints lakes at dawn", "tags": ["art"]})
        monkeypatch.setattr(memory.db, "read_fast", recording)
        memory.search(scope, "lakes", top_k=1)
        memory.search(
            long_scope,
            "who paints the lakes at dawn, and where does Melanie keep her brushes",
            top_k=30,
            tags=["art", "dawn", "lakes"],
            partitions=["home", "studio"],
            exclude_ids=[f"id-{i}" for i in range(40)],
        )
    finally:
        delete_scope(memory.db, long_scope)
    assert {"search_candidates", "search_related"} <= set(sent)
    for name, calls in sent.items():
        # A list that is sometimes null (the vector, absent from the passage half of a search,
        # which runs on its own thread) makes two plans, each made once: only lengths churn.
        for key in {key for call in calls for key in call}:
            lengths = {len(c[key]) for c in calls if isinstance(c.get(key), str | list)}
            assert len(lengths) <= 1, (name, key, lengths)
