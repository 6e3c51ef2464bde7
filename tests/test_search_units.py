"""Pure parts of search: Lucene escaping, rank fusion, scores, and option limits."""

from __future__ import annotations

import math
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph.errors import ValidationError
from graph.memory import Memory
from graph.search import (
    Fusion,
    FusionMethod,
    SearchOptions,
    Weights,
    candidates,
    combsum,
    escape,
    rrf,
    to_lucene,
    weighted_fusion,
)
from graph.search.candidates import (
    EXACT_MAX,
    OVERFETCH,
    TEXT_HEADROOM,
    UNSCOPED_SHARE,
    VECTOR_FETCH_MAX,
    Brief,
    Candidates,
    ScopeSize,
    fetch_size,
    filter_params,
    scope_exact,
    text_fetch_size,
    text_query,
)
from graph.search.engine import text_factors
from graph.search.lucene import MAX_FILTER_CLAUSES, MAX_TERMS, scoped, terms
from graph.search.relevance import features, shipped
from graph.search.scoring import composite, decay_factor, normalise, recency
from graph.search.subjects import boosted, named
from graph.storage.db import Database
from graph.write.facts import Fact, FactStatus

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def a_fact(**changes: object) -> Fact:
    values: dict[str, object] = {
        "id": "f1",
        "scope": "s",
        "partition": "default",
        "text": "t",
        "index_text": "t",
        "subject": None,
        "predicate": None,
        "object": None,
        "tags": (),
        "importance": 5.0,
        "source": None,
        "metadata": {},
        "session_id": None,
        "turn": None,
        "content_hash": "h",
        "embedder": None,
        "status": FactStatus.ACTIVE,
        "strength": 1.0,
        "access_count": 0,
        "last_accessed_at": None,
        "expires_at": None,
        "valid_from": NOW,
        "valid_to": None,
        "recorded_at": NOW,
        "expired_at": None,
        "updated_at": NOW,
    }
    values.update(changes)
    return Fact(**values)  # type: ignore[arg-type]


# -- Lucene ------------------------------------------------------------------------------------
def test_lucene_special_characters_are_escaped() -> None:
    assert escape('a+b-c&&d||e!f(g)h{i}j[k]l^m"n~o*p?q:r\\s/t') == (
        'a\\+b\\-c\\&\\&d\\|\\|e\\!f\\(g\\)h\\{i\\}j\\[k\\]l\\^m\\"n\\~o\\*p\\?q\\:r\\\\s\\/t'
    )


def test_free_text_becomes_lowercase_content_terms() -> None:
    assert to_lucene('Where does Alice WORK? title:"Acme" AND (OR) NOT x*') == (
        "alice work title acme x"
    )


def test_all_stopword_and_empty_queries_have_no_fulltext_side() -> None:
    assert to_lucene("") == ""
    assert to_lucene("what is the") == ""
    assert to_lucene("?!* ( ) \" ' ~") == ""


def test_terms_are_capped_below_lucenes_clause_limit() -> None:
    assert len(terms(" ".join(f"word{i}" for i in range(5000)))) == MAX_TERMS


@given(st.text(max_size=300))
def test_any_text_yields_only_plain_terms(text: str) -> None:
    query = to_lucene(text)
    for term in query.split():
        assert not any(c in term for c in '+-&|!(){}[]^"~*?:/') or "\\" in term


# -- fusion ------------------------------------------------------------------------------------
def test_rrf_sums_reciprocal_ranks_with_k_60() -> None:
    fused = dict(rrf([["a", "b", "c"], ["b", "d"]]))
    assert fused["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["a"] == pytest.approx(1 / 61)
    assert fused["d"] == pytest.approx(1 / 62)
    assert rrf([["a", "b", "c"], ["b", "d"]])[0][0] == "b"


def test_rrf_k_is_configurable() -> None:
    assert dict(rrf([["a"]], k=0))["a"] == pytest.approx(1.0)


def test_equal_weights_reproduce_rrf_exactly() -> None:
    lists = {"fulltext": ["a", "b", "c"], "vector": ["c", "a", "e"], "graph": ["e"]}
    weighted = weighted_fusion(lists, {"fulltext": 1.0, "vector": 1.0, "graph": 1.0})
    assert weighted == rrf(list(lists.values()))


def test_weights_shift_the_order() -> None:
    lists = {"fulltext": ["a", "b"], "vector": ["b", "a"]}
    assert weighted_fusion(lists, {"fulltext": 2.0, "vector": 1.0})[0][0] == "a"
    assert weighted_fusion(lists, {"fulltext": 1.0, "vector": 2.0})[0][0] == "b"
    assert weighted_fusion(lists, {"fulltext": 0.0, "vector": 1.0})[-1][1] == pytest.approx(1 / 62)


def test_ties_keep_first_seen_order_and_repeats_count_once() -> None:
    assert [i for i, _ in rrf([["x", "y"], ["y", "x"]])] == ["x", "y"]
    assert dict(rrf([["a", "a", "b"]]))["a"] == pytest.approx(1 / 61)


# -- scores ------------------------------------------------------------------------------------
def test_recency_and_decay_count_from_last_access() -> None:
    fresh = a_fact(last_accessed_at=NOW - timedelta(days=10), recorded_at=NOW - timedelta(days=99))
    assert recency(fresh, NOW, 10.0) == pytest.approx(math.exp(-1))
    never = a_fact(recorded_at=NOW - timedelta(days=20))
    assert recency(never, NOW, 10.0) == pytest.approx(math.exp(-2))
    strong = a_fact(strength=3.0, recorded_at=NOW - timedelta(days=10))
    assert decay_factor(strong, NOW, 10.0) == pytest.approx(3 * math.exp(-1))
    future = a_fact(recorded_at=NOW + timedelta(days=1))
    assert recency(future, NOW, 10.0) == 1.0


def test_composite_is_a_weighted_average() -> None:
    assert composite(1.0, 10.0, 1.0, Weights()) == pytest.approx(1.0)
    assert composite(0.5, 5.0, 0.2, Weights()) == pytest.approx((0.5 + 0.5 + 0.2) / 3)
    only_importance = Weights(relevance=0, importance=1, recency=0)
    assert composite(0.9, 3.0, 1.0, only_importance) == pytest.approx(0.3)


def test_normalise_scales_by_the_best() -> None:
    assert normalise([2.0, 1.0, 0.5]) == [1.0, 0.5, 0.25]
    assert normalise([]) == []
    assert normalise([-1.0, 1.0]) == [0.0, 1.0]


# -- options -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"top_k": 0}, "top_k"),
        ({"top_k": 101}, "top_k"),
        ({"top_k": True}, "top_k"),
        ({"candidate_top_k": 0}, "candidate_top_k"),
        ({"expand_hops": 2}, "expand_hops"),
        ({"prev_turns": -1}, "prev_turns"),
        ({"next_turns": 21}, "next_turns"),
        ({"weights": {"relevance": -1}}, "weights.relevance"),
        ({"weights": {"relevance": 0, "importance": 0, "recency": 0}}, "weights"),
        ({"weights": {"speed": 1}}, "weights.speed"),
        ({"decay": {"tau_days": 0}}, "decay.tau_days"),
        ({"fusion": {"method": "borda"}}, "fusion.method"),
        ({"fusion": {"k": -1}}, "fusion.k"),
        ({"mode": "psychic"}, "mode"),
        ({"tags": "red"}, "tags"),
        ({"partitions": []}, "partitions"),
        ({"as_of": "yesterday"}, "as_of"),
        ({"include_expired": "yes"}, "include_expired"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_bad_options_name_their_field(options: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        SearchOptions.build(**options)
    assert caught.value.field == field


def test_limits_are_inclusive() -> None:
    assert SearchOptions.build(top_k=1).top_k == 1
    assert SearchOptions.build(top_k=100).top_k == 100
    built = SearchOptions.build(fusion={"method": "WEIGHTED", "vector": 2}, as_of="2024-01-01")
    assert built.fusion.weights() == {"fulltext": 1.0, "vector": 2.0, "graph": 1.0, "passage": 1.0}
    assert built.as_of == datetime(2024, 1, 1, tzinfo=UTC)


def test_expired_facts_are_cut_off_at_now_unless_asked_for() -> None:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    shown = filter_params("s", SearchOptions(), now)["filter"]["now"]
    every = filter_params("s", SearchOptions(include_expired=True), now)["filter"]["now"]
    assert shown == now and every < datetime(1000, 1, 1, tzinfo=UTC)


def test_the_scope_clause_is_a_zero_weight_phrase() -> None:
    assert scoped('team "a"\\b', "alice work") == (
        '+scope:"team \\"a\\"\\\\b"^0 +index_text:(alice work)'
    )
    assert scoped("anything", "") == ""


def test_tags_and_partitions_become_zero_weight_clauses() -> None:
    """Every tag is required; any one partition will do; past the cap the clause is left to
    Cypher's exact check."""
    assert scoped("s", "alice", tags=("a b", 'q"'), partitions=("p1", "p2")) == (
        '+scope:"s"^0 +tags:"a b"^0 +tags:"q\\""^0 +(partition:"p1" partition:"p2")^0 '
        "+index_text:(alice)"
    )
    many = tuple(f"p{i}" for i in range(MAX_FILTER_CLAUSES + 1))
    assert scoped("s", "alice", tags=many, partitions=many) == (
        '+scope:"s"^0 '
        + " ".join(f'+tags:"p{i}"^0' for i in range(MAX_FILTER_CLAUSES))
        + " +index_text:(alice)"
    )


def test_the_vector_index_is_asked_for_what_the_scope_needs() -> None:
    """A scope that is most of the index loses few neighbours to the scope filter; a
    mid-sized scope beside a bigger one many; a small scope is scored exactly when short."""
    assert fetch_size(60, 1.0, 100_000) == 90
    assert fetch_size(60, 0.91, 100_000) == 99
    assert fetch_size(60, 0.12, 10_000) == 750
    assert fetch_size(60, 0.01, 10_000) == VECTOR_FETCH_MAX
    assert fetch_size(60, 0.5, 1_500) == 60 * OVERFETCH  # small: exact scoring backs it up
    assert fetch_size(60, 0.0, 0) == 60 * OVERFETCH  # unknown or empty
    assert fetch_size(100, 0.5, 10_000) == 300
    assert all(60 <= fetch_size(60, s / 100, 50_000) <= VECTOR_FETCH_MAX for s in range(0, 101))


def test_a_scope_too_small_a_share_for_the_index_is_scored_exactly_at_once() -> None:
    """When the widest index call would keep fewer than k of the scope's facts, the exact scan
    would follow it anyway: it is skipped. Big scopes, and scopes the index serves, keep it."""

    def exact(live: int, total: int, k: int = 60) -> bool:
        size = ScopeSize(live / total, live, total)
        return scope_exact(k, fetch_size(k, size.share, live), size)

    assert exact(10_000, 1_010_000)  # 1,000 neighbours hold ~10 of its facts
    assert exact(500, 100_000)
    assert not exact(10_000, 110_000)  # 1,000 neighbours hold ~90
    assert not exact(100_000, 100_000)
    assert not exact(EXACT_MAX + 1, 10_000_000)  # too big to scan: the index, however short
    assert not exact(0, 1_000)


def test_a_scope_holding_most_facts_asks_full_text_without_its_scope_clause() -> None:
    """The clause would make Lucene walk a posting list as long as the index (p95 65-110 ms at
    1,000,000 facts, 18-23 ms without); the filters' own clauses stay, and Cypher still checks
    the scope. The retry of a short list always carries the clause (search_candidates.cypher)."""
    options = SearchOptions(tags=("music",))

    def query(of_database: float | None) -> str:
        size = None if of_database is None else ScopeSize(1.0, 1000, 1000, of_database)
        return text_query("mine", "violin", options, size)

    assert query(UNSCOPED_SHARE).startswith('+tags:"music"^0 +index_text:(violin)')
    assert "+scope:" not in query(0.99)
    assert query(UNSCOPED_SHARE - 0.01).startswith('+scope:"mine"^0 +tags:"music"^0')
    assert query(None) == query(0.0)


def test_a_scoped_full_text_list_asks_half_again_its_k_and_an_unscoped_one_three_times() -> None:
    """With the scope clause only statuses, expiry and excluded ids are left to filter (a
    shortfall is asked again deeper); without it, or with asOf's validity, the over-fetch
    stays."""
    small = ScopeSize(0.01, 10_000, 1_000_000, 0.01)
    most = ScopeSize(1.0, 900_000, 1_000_000, 0.9)
    assert text_fetch_size(60, SearchOptions(), small) == 60 * TEXT_HEADROOM == 90
    assert text_fetch_size(60, SearchOptions(), most) == 60 * OVERFETCH
    as_of = SearchOptions(as_of=datetime(2026, 1, 1, tzinfo=UTC))
    assert text_fetch_size(60, as_of, small) == 60 * OVERFETCH


def test_scope_shares_are_remembered_for_a_bounded_number_of_scopes(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many scopes must not grow the service's memory: the oldest share is dropped."""
    reads: list[str] = []
    me = threading.get_ident()

    def hook(what: str, _elapsed: float) -> None:
        if threading.get_ident() == me:  # the shared database's other readers are not ours
            reads.append(what)

    monkeypatch.setattr(candidates, "SHARES_KEPT", 3)
    shares = candidates._Shares()
    db.query_hooks.append(hook)
    try:
        for scope in ("share-a", "share-b", "share-c", "share-d"):
            size = shares.share(db, scope)
            assert (size.share, size.live) == (0.0, 0)  # scopes without facts
        assert len(reads) == 4
        shares.share(db, "share-d")
        assert len(reads) == 4  # still cached
        shares.share(db, "share-a")
        assert len(reads) == 5  # dropped as the oldest, read again
    finally:
        db.query_hooks.remove(hook)


def test_a_share_past_its_ttl_answers_at_once_and_is_read_again_off_the_search(
    memory: Memory, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a scope's first search waits for the count behind its share (~110 ms at 1,000,000
    facts in one scope); past SHARE_TTL the old share answers and a worker reads the new one."""
    monkeypatch.setattr(candidates, "SHARE_TTL", 0.0)
    shares = candidates._Shares()
    assert shares.share(memory.db, scope).live == 0
    memory.remember(scope, {"text": "Ivo keeps bees on the roof"})

    stale = shares.share(memory.db, scope)
    deadline = time.monotonic() + 10
    while shares.share(memory.db, scope).live == 0 and time.monotonic() < deadline:
        time.sleep(0.01)

    assert stale.live == 0  # answered from the cache, not read on the caller's path
    assert shares.share(memory.db, scope).live == 1  # the worker's read replaced it
    # That last look, past the TTL of 0, queued one more read: it must not outlive this test.
    candidates.refreshes_done(timeout=30)


def test_a_one_round_trip_read_answers_like_a_managed_read(db: Database) -> None:
    """Search's auto-commit reads see what managed reads see, and are counted by the hooks."""
    names: list[str] = []
    me = threading.get_ident()

    def hook(what: str, _elapsed: float) -> None:
        if threading.get_ident() == me:  # the shared database's other readers are not ours
            names.append(what)

    params = {"scope": "no-such-scope"}
    db.query_hooks.append(hook)
    try:
        fast = [dict(r) for r in db.read_fast("search_scope_share", params)]
        managed = [dict(r) for r in db.read("search_scope_share", params)]
    finally:
        db.query_hooks.remove(hook)
    assert fast == managed and fast[0]["live"] == 0
    assert names == ["search_scope_share", "search_scope_share"]


def test_combsum_adds_min_max_normalised_scores_times_the_list_weights() -> None:
    lists = {
        "fulltext": [("a", 9.0), ("b", 3.0), ("c", 1.0)],  # a far ahead of b
        "vector": [("b", 0.62), ("a", 0.60), ("d", 0.40)],  # b barely ahead of a
    }
    fused = dict(combsum(lists, {}))
    assert fused["a"] == pytest.approx(1.0 + (0.60 - 0.40) / 0.22)
    assert fused["b"] == pytest.approx(0.25 + 1.0)
    assert fused["c"] == 0.0 and fused["d"] == 0.0
    assert [item for item, _ in combsum(lists, {})][:2] == ["a", "b"]
    ranks = dict(rrf([[item for item, _ in items] for items in lists.values()]))
    assert ranks["a"] == ranks["b"]  # rank fusion cannot tell a's margin from b's
    weighted = dict(combsum(lists, {"vector": 3.0}))
    assert weighted["b"] == pytest.approx(0.25 + 3.0)
    assert dict(combsum({"one": [("x", 0.3)], "none": []}, {})) == {"x": 1.0}


def test_a_word_match_in_a_long_text_counts_in_proportion_to_its_length() -> None:
    """A long assistant answer that repeats the question's words stood as high in the full-text
    list as the short message holding the answer: past text_match_chars, a text list's term
    shrinks by text_match_chars / length, and the vector list's does not."""
    briefs = {
        fid: Brief(fid, 5.0, 1.0, datetime(2024, 1, 1, tzinfo=UTC), None, chars=chars)
        for fid, chars in (("short", 120), ("long", 2_000), ("edge", 500))
    }
    found = Candidates(
        lists={
            "fulltext": [("long", 9.0), ("short", 8.0), ("edge", 1.0)],
            "passage": [("long", 5.0), ("edge", 1.0)],
            "vector": [("short", 0.93), ("long", 0.92), ("edge", 0.90)],
        },
        briefs=briefs,
        facts={},
        fulltext_exhaustive=False,
        vector_exact=False,
    )
    factors = text_factors(found, 500)
    assert factors == {"fulltext": {"long": 0.25}, "passage": {"long": 0.25}}
    assert text_factors(found, 0) == {}
    fused = dict(combsum(found.lists, {}, factors))
    assert fused["long"] == pytest.approx(0.25 * 1.0 + 0.25 * 1.0 + (0.92 - 0.90) / 0.03)
    assert fused["short"] == pytest.approx(7.0 / 8.0 + 1.0)
    in_full = dict(combsum(found.lists, {}))
    assert in_full["long"] > in_full["short"] and fused["short"] > fused["long"]
    with pytest.raises(ValidationError):
        SearchOptions.build(text_match_chars=-1)


def test_a_word_match_never_lowers_a_hits_relevance() -> None:
    """The shipped model, over the scores search meets: more of the query's words matched (a
    higher lexical score, a higher coverage) at the same vector score never means less
    relevance. A fit with "matched at all" indicators broke this for faint matches, and a
    LangGraph store item holding the query word fell below one that did not."""
    model = shipped()
    for cosine in (0.70, 0.80, 0.85, 0.90, 0.95, 0.97):
        for terms_ in (1, 3, 8):
            chances = [
                model.probability(
                    features(
                        cosine=cosine,
                        matched=held,
                        coverage=held / terms_,
                        char_coverage=held / terms_,
                        subject=False,
                    )
                )
                for held in range(terms_ + 1)
            ]
            assert chances == sorted(chances), (cosine, terms_)


def test_the_default_fusion_is_combsum_and_a_k_alone_asks_for_rank_fusion() -> None:
    assert SearchOptions().fusion.method is FusionMethod.COMBSUM
    assert SearchOptions.build(fusion={"k": 60}).fusion == Fusion(method=FusionMethod.RRF, k=60)
    assert SearchOptions.build(fusion={"method": "combsum", "passage": 2}).fusion.weights() == {
        "fulltext": 1.0,
        "vector": 1.0,
        "graph": 1.0,
        "passage": 2.0,
    }
    with pytest.raises(ValidationError) as err:
        SearchOptions.build(fusion={"method": "best"})
    assert err.value.field == "fusion.method"


def test_a_query_naming_one_subject_boosts_that_subjects_facts_only() -> None:
    subjects = ["Caroline", "Melanie", None, "Dr. Jane Smith"]
    rel = [1.0, 0.9, 0.5, 0.2]
    assert named("When did Caroline's friend visit?", subjects) == {"caroline"}
    assert named("what did caroline tell MELANIE", subjects) == {"caroline", "melanie"}
    assert named("Where does dr jane smith work?", subjects) == {"dr jane smith"}
    assert named("Carolines bike", subjects) == set()  # whole words only
    assert boosted("Where did Melanie go?", subjects, rel, 0.2) == pytest.approx(
        [1.0 / 1.2, 1.1 / 1.2, 0.5 / 1.2, 0.2 / 1.2]
    )
    assert boosted("Did Caroline meet Melanie?", subjects, rel, 0.2) == rel  # two: no boost
    assert boosted("Where did Melanie go?", subjects, rel, 0.0) == rel
