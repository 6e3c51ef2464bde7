"""A selective filter must not starve search: a scope holding 1% of the facts of its vector
shard still gets full candidate lists and a full page of hits, although the vector and
full-text indexes rank the other 99% first (Neo4j 5.26 cannot pre-filter an index query); a
scope of another shard is not crowded at all. On Neo4j 2026.01+ the vector index filters by
scope itself: the same scope gets its full top k from the index, without the exact scan."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graph.bulk.autocommit import delete_scope
from graph.bulk.importer import ImportOptions, run_import
from graph.memory import Memory
from graph.search import SearchOptions, candidates
from graph.search.candidates import OVERFETCH, Candidates, fetch
from graph.storage import vector_shards
from graph.storage.db import Database

QUERY = "violin practice schedule"
CROWD = 2_970
MINE = 30


def _near(vector: list[float], rng: random.Random) -> list[float]:
    """A unit vector very close to `vector`: the crowd outranks every fact of the small scope."""
    noisy = [x + rng.gauss(0, 0.01) for x in vector]
    norm = sum(x * x for x in noisy) ** 0.5
    return [x / norm for x in noisy]


def scope_in(shard: int) -> str:
    """A fresh scope name in that vector shard (graph/storage/vector_shards.py): whether two
    scopes share a vector index is what these tests are about."""
    return next(
        name
        for name in (f"test-{uuid.uuid4().hex[:12]}" for _ in range(1000))
        if vector_shards.shard_of(name) == shard
    )


def scope_name(*, shard_of: str) -> str:
    """A fresh scope name in the vector shard of `shard_of`."""
    return scope_in(vector_shards.shard_of(shard_of))


def emptiest_shard(memory: Memory, besides: int | None = None) -> int:
    """The shard holding the fewest facts (other than `besides`): elsewhere, other tests'
    facts, or a kept bench scope, can outnumber a test's near the query."""
    counts = memory.db.read("vector_shard_counts")[0]["shards"]
    return min((s for s in range(len(counts)) if s != besides), key=lambda s: counts[s])


def question_candidates(memory: Memory, scope: str) -> Candidates:
    """The candidate lists of the test's question in `scope`, with the default options."""
    return fetch(
        memory.db,
        scope,
        SearchOptions(),
        lucene=QUERY,
        vector=list(memory.embedder.embed_query(QUERY)),
        now=datetime.now(UTC),
    )


@pytest.fixture(scope="module")
def crowded(memory: Memory, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scope holding 30 of 3,000 facts; the other 2,970 match the query better."""
    scope = f"test-{uuid.uuid4().hex[:12]}"
    other_scope = scope_name(shard_of=scope)  # the crowd shares the scope's vector shard
    tmp_path = tmp_path_factory.mktemp("selective")
    rng = random.Random(7)
    target = list(memory.embedder.embed_query(QUERY))
    crowd = tmp_path / "crowd.jsonl"
    with crowd.open("w", encoding="utf-8") as out:
        for i in range(CROWD):
            row = {
                "text": f"violin practice schedule {i} for the orchestra",
                "embedding": _near(target, rng),
            }
            out.write(json.dumps(row) + "\n")
    mine = tmp_path / "mine.jsonl"
    with mine.open("w", encoding="utf-8") as out:
        for i in range(MINE):
            tags = ["music"] if i % 3 == 0 else []
            tags += ["solo"] if i == MINE - 1 else []
            row = {"text": f"Note {i}: the violin practice plan, week {i}", "tags": tags}
            out.write(json.dumps(row) + "\n")
    for path, into in ((crowd, other_scope), (mine, scope)):
        summary = run_import(
            memory, ImportOptions(path=path, scope=into, fast=True, progress=False, restart=True)
        )
        assert summary.inserted == (CROWD if into == other_scope else MINE)
    yield scope
    delete_scope(memory.db, other_scope)
    delete_scope(memory.db, scope)


def test_a_naive_post_filter_would_come_back_short(
    db: Database, memory: Memory, crowded: str
) -> None:
    """The premise on 5.26: over-fetching from the vector index and filtering finds (almost)
    nothing. On 2026.01+ the same query filters inside the index and finds all 30."""
    vector = list(memory.embedder.embed_query(QUERY))
    naive = db.read(
        "fact_neighbours_index",
        {
            "scope": crowded,
            "statuses": ["active"],
            "exclude": [],
            "vector": vector,
            "fetch": 60 * OVERFETCH,
            "k": 60,
            "index": vector_shards.index(crowded),
        },
    )
    if db.server_version.in_index_filters:
        assert len(naive) == MINE
        assert {r["fact"]["scope"] for r in naive} == {crowded}
    else:
        assert len(naive) < 10


def test_a_one_percent_scope_gets_its_full_top_k_from_the_filtered_index(
    db: Database, memory: Memory, crowded: str
) -> None:
    """Neo4j 2026.01+: 30 facts among 3,000 whose other 2,970 all rank higher: the SEARCH
    filtered to the scope returns its k best, the same k an exact scan ranks first, without
    the exact fallback."""
    if not db.server_version.in_index_filters:
        pytest.skip("Neo4j 5.26 cannot filter inside the vector index (scored exactly instead)")
    k = 10
    vector = list(memory.embedder.embed_query(QUERY))
    found = fetch(
        db,
        crowded,
        SearchOptions(candidate_top_k=k),
        lucene="",
        vector=vector,
        now=datetime.now(UTC),
    )
    assert not found.vector_exact
    assert len(found.lists["vector"]) == k
    exact = db.read(
        "fact_neighbours_exact",
        {"scope": crowded, "statuses": ["active"], "exclude": [], "vector": vector, "k": k},
    )
    assert {fid for fid, _ in found.lists["vector"]} == {r["fact"]["id"] for r in exact}


def test_both_lists_are_complete_for_a_one_percent_scope(memory: Memory, crowded: str) -> None:
    found = question_candidates(memory, crowded)
    # 5.26 scores the scope exactly; 2026.01+ finds all 30 in the filtered index.
    assert found.vector_exact == (not memory.db.server_version.in_index_filters)
    assert len(found.lists["vector"]) == MINE
    assert len(found.lists["fulltext"]) == MINE
    assert {f.scope for f in found.facts.values()} == {crowded}


def test_a_scope_asked_without_its_clause_still_gets_every_full_text_match(
    memory: Memory, crowded: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scope holding most of the facts asks full-text without its scope clause (cheaper at a
    million facts). Should other scopes' matches fill that first call after all, the retry, which
    carries the clause, still brings every match of the scope."""
    monkeypatch.setattr(candidates, "UNSCOPED_SHARE", 0.0)  # treat this 1% scope as dominant
    monkeypatch.setattr(candidates, "WIDE", 200)  # a retry without the clause would be crowded
    size = candidates.shares.share(memory.db, crowded)
    assert "+scope:" not in candidates.text_query(crowded, QUERY, SearchOptions(), size)
    found = question_candidates(memory, crowded)
    assert len(found.lists["fulltext"]) == MINE
    assert {f.scope for f in found.facts.values()} == {crowded}


def test_a_small_scope_of_another_shard_gets_its_vectors_from_its_own_index(
    memory: Memory, crowded: str, tmp_path: Path
) -> None:
    """The crowd fills another index: the small scope's index call finds its facts directly.
    The scope goes to the emptiest other shard: in a shard that another large scope fills (a
    kept 100,000-fact bench scope did), the index call keeps too few of its facts and the exact
    scan answers instead, as designed."""
    apart = scope_in(emptiest_shard(memory, besides=vector_shards.shard_of(crowded)))
    path = tmp_path / "apart.jsonl"
    path.write_text(
        "".join(
            json.dumps({"text": f"Note {i}: the violin practice plan, week {i}"}) + "\n"
            for i in range(MINE)
        ),
        encoding="utf-8",
    )
    run_import(memory, ImportOptions(path=path, scope=apart, fast=True, progress=False))
    try:
        found = question_candidates(memory, apart)
        assert not found.vector_exact
        assert len(found.lists["vector"]) == MINE
    finally:
        delete_scope(memory.db, apart)


def test_a_short_first_vector_call_is_asked_again_wider_before_an_exact_scan(
    memory: Memory, tmp_path: Path
) -> None:
    """A scope sharing its shard with 300 facts nearer the query than any of its 2,500: the
    first call (about 100 neighbours) keeps none of them, the second, four times wider, a full
    list, and the 2,500 facts are never scanned exactly."""
    rng = random.Random(11)
    target = list(memory.embedder.embed_query(QUERY))
    # The emptiest shard: other tests' facts near the query (the `crowded` fixture's 2,970)
    # would make the wider call come short too, and the exact scan would follow.
    mine = scope_in(emptiest_shard(memory))
    crowd = scope_name(shard_of=mine)

    def far() -> list[float]:
        v = [rng.gauss(0, 1) for _ in target]
        norm = sum(x * x for x in v) ** 0.5
        return [x / norm for x in v]

    files = {
        crowd: [{"text": f"crowd {i}", "embedding": _near(target, rng)} for i in range(300)],
        mine: [{"text": f"mine {i}", "embedding": far()} for i in range(2_500)],
    }
    try:
        for scope, rows in files.items():
            path = tmp_path / f"{scope}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            run_import(memory, ImportOptions(path=path, scope=scope, fast=True, progress=False))
        found = fetch(
            memory.db, mine, SearchOptions(), lucene="", vector=target, now=datetime.now(UTC)
        )
        assert not found.vector_exact
        assert len(found.lists["vector"]) == SearchOptions().candidate_top_k
        assert {f.scope for f in found.facts.values()} == {mine}
    finally:
        delete_scope(memory.db, crowd)
        delete_scope(memory.db, mine)


def test_search_returns_a_full_page_from_the_small_scope(memory: Memory, crowded: str) -> None:
    for mode in ("hybrid", "vector", "fulltext"):
        hits = memory.search(crowded, QUERY, top_k=25, mode=mode, track_access=False).hits
        assert len(hits) == 25, mode
        assert {h.fact.scope for h in hits} == {crowded}


def test_a_selective_tag_filter_inside_the_scope_is_not_starved(
    memory: Memory, crowded: str
) -> None:
    hits = memory.search(crowded, QUERY, top_k=20, tags=["music"], track_access=False).hits
    assert len(hits) == MINE // 3
    assert all("music" in h.fact.tags for h in hits)


def test_a_tag_rarer_than_the_overfetch_is_answered_by_the_index(
    memory: Memory, crowded: str
) -> None:
    """Inside the scope, one fact in 30 carries the tag; 3 candidates over-fetch only 9. The
    tag is part of the Lucene query, so the first index call finds it without a wider pass;
    the vector side scores the tag's facts exactly."""
    found = fetch(
        memory.db,
        crowded,
        SearchOptions(candidate_top_k=3, tags=("solo",)),
        lucene="violin practice",
        vector=list(memory.embedder.embed_query(QUERY)),
        now=datetime.now(UTC),
    )
    (solo,) = [f for f in found.facts.values() if "solo" in f.tags]
    assert [fid for fid, _ in found.lists["fulltext"]] == [solo.id]
    assert not found.fulltext_exhaustive
    assert [fid for fid, _ in found.lists["vector"]] == [solo.id]
    assert found.vector_exact


def test_a_filter_the_index_cannot_see_falls_back_to_every_match(
    memory: Memory, crowded: str
) -> None:
    """Excluding 29 of the 30 facts leaves one that ranks below the over-fetch (its week number
    is not in the query): the first index call finds none of what is left, so full-text is
    asked again for every match."""
    lucene = "violin " + " ".join(str(week) for week in range(1, MINE))
    everything = fetch(
        memory.db, crowded, SearchOptions(), lucene=lucene, vector=None, now=datetime.now(UTC)
    )
    (last,) = [f.id for f in everything.facts.values() if f.text.startswith("Note 0:")]
    others = tuple(fid for fid in everything.facts if fid != last)
    found = fetch(
        memory.db,
        crowded,
        SearchOptions(candidate_top_k=3, exclude_ids=others),
        lucene=lucene,
        vector=None,
        now=datetime.now(UTC),
    )
    assert [fid for fid, _ in found.lists["fulltext"]] == [last]
    assert found.fulltext_exhaustive


# Note i's number, boosted i + 1 times: every fact of the scope matches, none ties with another.
BY_NOTE = " ".join(f"{i}^{i + 1}" for i in range(MINE))


def _fulltext_ids(memory: Memory, scope: str, options: SearchOptions) -> list[str]:
    found = fetch(memory.db, scope, options, lucene=BY_NOTE, vector=None, now=datetime.now(UTC))
    return [fid for fid, _ in found.lists.get("fulltext", [])]


@pytest.mark.parametrize(
    ("k", "kept_ranks"),
    [
        (5, [3, 12, 13, 14, 20]),  # the first call keeps 1 of 8: asked again 80 deep, enough
        (2, [1, 29]),  # keeps 1 of 3: asked again 12 deep, still short with more left: every match
        (5, [12, 13, 14, 20, 25]),  # keeps none of 8: every match
    ],
)
def test_a_short_full_text_list_is_filled_from_deeper_in_the_index(
    memory: Memory, crowded: str, k: int, kept_ranks: list[int]
) -> None:
    """A filter the index cannot see (here excludeIds) leaves the first call short: the list
    is filled from as deep as the share the first call kept says, and from every match when
    that is not deep enough. Either way it is the same list an exhaustive search gives."""
    ranked = _fulltext_ids(memory, crowded, SearchOptions(candidate_top_k=MINE))
    assert len(ranked) == MINE
    left = [ranked[rank] for rank in kept_ranks]
    options = SearchOptions(
        candidate_top_k=k, exclude_ids=tuple(fid for fid in ranked if fid not in left)
    )
    assert _fulltext_ids(memory, crowded, options) == left[:k]


@pytest.mark.parametrize(
    ("wanted", "others"),
    [
        ("the", ["an", "solo-the"]),  # stopwords only: the analyzer leaves no clause at all
        ("solo", ["solo-x", "x-solo"]),  # a longer tag holds the same word
        ("Rock Band", ["rock", "band", "rock-band-2"]),  # split into two words
        ("!!!", ["???"]),  # no word at all
    ],
)
def test_a_tag_filter_stays_exact_whatever_the_analyzer_makes_of_it(
    memory: Memory, scope: str, wanted: str, others: list[str]
) -> None:
    for i, tag in enumerate([wanted, *others]):
        memory.remember(scope, {"text": f"Piano lesson number {i} went well", "tags": [tag]})
    for mode in ("fulltext", "hybrid"):
        hits = memory.search(scope, "piano lesson", tags=[wanted], mode=mode).hits
        assert [h.fact.tags for h in hits] == [(wanted,)], mode


def test_the_rarest_tag_asked_for_is_the_pool_scored_exactly(
    memory: Memory, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six facts carry 'common', one carries 'common' and 'rare'. With room to score at most
    four facts exactly, asking for ('common', 'rare') scans the one fact of the rarer tag, in
    whichever order the tags come."""
    for i in range(6):
        memory.remember(scope, {"text": f"Cello practice, take {i}", "tags": ["common"]})
    both = memory.remember(
        scope, {"text": "Cello practice with the quartet", "tags": ["common", "rare"]}
    )
    monkeypatch.setattr(candidates, "EXACT_MAX", 4)
    vector = list(memory.embedder.embed_query("cello practice"))
    for tags in (("common", "rare"), ("rare", "common")):
        found = fetch(
            memory.db,
            scope,
            SearchOptions(tags=tags),
            lucene="cello",
            vector=vector,
            now=datetime.now(UTC),
        )
        assert found.vector_exact, tags
        assert [fid for fid, _ in found.lists["vector"]] == [both.id], tags


def test_a_tag_nobody_carries_finds_nothing_without_asking_the_index(
    memory: Memory, scope: str
) -> None:
    memory.remember(scope, {"text": "Cello practice on Monday", "tags": ["music"]})
    for mode in ("vector", "hybrid"):
        assert memory.search(scope, "cello practice", tags=["unheard-of"], mode=mode).hits == []
