"""The candidate round trip: one Cypher query returns every ranked list a search fuses."""

from __future__ import annotations

import contextvars
import dataclasses
import logging
import math
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from graph.search.lexical import stems
from graph.search.lucene import scoped
from graph.search.options import DEFAULT_CHUNK_DISCOUNT, Mode, SearchOptions
from graph.storage import vector_shards
from graph.storage.db import Database
from graph.write.facts import Fact, FactStatus, read_time

log = logging.getLogger("factgraph.search")

# Neo4j's vector index ranks the whole database, not the scope, so the vector list asks for
# more than it keeps: about k * HEADROOM / (the scope's share of the facts), at least k and at
# most VECTOR_FETCH_MAX. Asking for 180 neighbours costs about twice what 80 cost, and 1,000
# about 40 ms at 100,000 facts, far less than scoring 10,000 facts exactly (~400 ms). A scope
# of fewer than SMALL_SCOPE live facts keeps the old 3x: when that comes back short, scoring
# its few facts exactly is cheaper than a wide index call. The full-text index is restricted
# to the scope by its query, so it only over-fetches for the other filters (TEXT_HEADROOM).
# SHARE_TTL bounds how stale a share may be; staleness costs time, never results (see the
# fallbacks in search_candidates.cypher).
OVERFETCH = 3
HEADROOM = 1.5
VECTOR_FETCH_MAX = 1_000
SMALL_SCOPE = 2_000
SHARE_TTL = 60.0
SHARES_KEPT = 10_000  # scopes remembered per database; the oldest entries go first
# Beyond this many live facts in a scope, an exact vector scan costs more than a wide index
# query; WIDE is how far both indexes are asked when a filter is selective.
EXACT_MAX = 20_000
# A vector call that kept fewer than k of the scope's facts is asked again this many times wider
# before the scope is scanned exactly (search_candidates.cypher): a scope sharing its shard.
RETRY_WIDER = 4
WIDE = 5_000
EXPANSION_SEEDS = 10
# The chunks of long texts (graph/write/chunks.py) are asked of their own index this many times
# deeper than the facts' (at most VECTOR_FETCH_MAX): a fact's neighbouring windows often come
# back together, so k facts take more than k chunks.
CHUNK_FANOUT = 2
# The expiry cut-off that shows every fact, expired or not (`include_expired`).
EVER = datetime(1, 1, 1, tzinfo=UTC)
# A scope holding at least this share of all facts asks the full-text indexes without its scope
# clause (graph/search/lucene.py scoped): the clause would narrow little and cost much. With half
# the index, an over-fetch of OVERFETCH * k keeps about 1.5 k of the scope's matches on average;
# when it keeps fewer, search_candidates.cypher asks again with the clause.
UNSCOPED_SHARE = 0.5
# With the scope clause in its Lucene query, a full-text list loses only facts of other
# statuses, expired facts and excluded ids to the filters (asOf aside), so TEXT_HEADROOM * k
# matches keep k almost always, and a shortfall is asked again deeper
# (search_candidates.cypher): the top k are the same either way. Each match asked is a node
# the query reads and filters; 180 instead of 90 cost ~0.45 ms of a 3 ms candidate query in a
# 10,000-fact scope beside a million facts (bench/README "Full-text in a small scope").
TEXT_HEADROOM = 1.5


@dataclass(frozen=True)
class Brief:
    """What ranking reads of a candidate: a few fields of its fact.

    Shipping only these for the ~100 candidates of a search, and the whole fact for the top-k
    hits alone, saves ~8 ms per search at 100,000 facts (bench/latency.py); the related-facts
    query reads the hits' sessions and tags itself.
    """

    id: str
    importance: float
    strength: float
    recorded_at: datetime
    last_accessed_at: datetime | None
    subject: str | None = None
    # The length of its text: a word match in a long text says less (options.text_match_chars).
    chars: int = 0
    # Which of the query's word stems its text holds, by index (graph/search/lexical.py).
    matched: tuple[int, ...] = ()

    @classmethod
    def from_map(cls, props: dict[str, Any]) -> Brief:
        recorded = read_time(props["recorded_at"])
        assert recorded is not None  # every fact is recorded at some time
        return cls(
            id=str(props["id"]),
            importance=float(props["importance"] if props.get("importance") is not None else 5.0),
            strength=float(props.get("strength") or 1.0),
            recorded_at=recorded,
            last_accessed_at=read_time(props.get("last_accessed_at")),
            subject=props.get("subject"),
            chars=int(props.get("chars") or 0),
            matched=tuple(props.get("matched") or ()),
        )

    @classmethod
    def of(cls, fact: Fact, matched: tuple[int, ...] = ()) -> Brief:
        return cls(
            id=fact.id,
            importance=fact.importance,
            strength=fact.strength,
            recorded_at=fact.recorded_at,
            last_accessed_at=fact.last_accessed_at,
            subject=fact.subject,
            chars=len(fact.text),
            matched=matched,
        )


@dataclass(frozen=True)
class Candidates:
    """Ranked (id, raw score) lists by name; a brief of every candidate, and its whole fact
    when fetched with `full` (empty otherwise); `cosines`: each candidate's vector similarity
    to the query's (index scale), wherever it came from, when the query was embedded (those
    of the vector list's members only, when fetched without `every_cosine`)."""

    lists: dict[str, list[tuple[str, float]]]
    briefs: dict[str, Brief]
    facts: dict[str, Fact]
    fulltext_exhaustive: bool
    vector_exact: bool
    cosines: dict[str, float] = field(default_factory=dict)


def statuses(options: SearchOptions) -> list[str]:
    """Active facts; quarantined on request; with asOf, also the superseded (history)."""
    out = [FactStatus.ACTIVE.value]
    if options.include_quarantined:
        out.append(FactStatus.QUARANTINED.value)
    if options.as_of is not None:
        out.append(FactStatus.SUPERSEDED.value)
    return out


def filter_params(scope: str, options: SearchOptions, now: datetime) -> dict[str, Any]:
    """The search filters as one map parameter, `$filter`.

    Neo4j keys its plan cache on the length of each string and list parameter, in coarse
    buckets: as separate parameters, a scope name of another length, a second tag or a 17th
    excluded id each made the server plan the candidate query again (1.3-2.4 s measured at
    the first such search; bench/README "Plans keyed by a string's length"). A map's contents
    do not key it.
    """
    return {
        "filter": {
            "scope": scope,
            "statuses": statuses(options),
            "partitions": list(options.partitions) if options.partitions is not None else None,
            "tags": list(options.tags),
            # The expiry cut-off: a fact expiring after it is shown (none with include_expired).
            "now": EVER if options.include_expired else now,
            "as_of": options.as_of,
            "exclude": list(options.exclude_ids),
        }
    }


def fetch_size(k: int, share: float, live: int) -> int:
    """How many neighbours to ask the vector index for, to keep about `k` in the scope."""
    if share <= 0.0 or live < SMALL_SCOPE:
        return k * OVERFETCH
    return max(k, min(max(VECTOR_FETCH_MAX, k * OVERFETCH), math.ceil(k * HEADROOM / share)))


def filtered_fetch_size(k: int, options: SearchOptions) -> int:
    """Neo4j 2026.01+: how many neighbours to ask SEARCH for, per status.

    The index itself keeps the scope and the status (cypher/neo4j2026/search_candidates.cypher),
    so only the filters it does not hold call for more than k: the excluded ids, and OVERFETCH
    times k when partitions, tags or asOf narrow further (a shortfall is asked again wider).
    """
    if options.partitions is not None or options.tags or options.as_of is not None:
        return k * OVERFETCH
    return k + len(options.exclude_ids)


def has_scope_clause(size: ScopeSize | None) -> bool:
    """Whether a full-text query names its scope: not when the scope holds most of the facts
    (UNSCOPED_SHARE), where the clause would narrow little and cost much. One rule for the
    query (text_query) and for how deep it is asked (text_fetch_size), so they cannot part."""
    return size is None or size.of_database < UNSCOPED_SHARE


def text_fetch_size(k: int, options: SearchOptions, size: ScopeSize) -> int:
    """How many matches to ask each full-text index for, to keep about `k` after the filters."""
    if not has_scope_clause(size) or options.as_of is not None:
        # No scope clause: the other scopes' matches come too. asOf: validity,
        # which Lucene does not hold, can leave out much of a scope's history.
        return k * OVERFETCH
    return math.ceil(k * TEXT_HEADROOM)


def tag_exact_max(k: int, vec_fetch: int, total: int) -> int:
    """Below this many facts, a tag's facts are scored exactly without asking the vector index.

    Of `vec_fetch` neighbours from the whole database, about vec_fetch * degree / total carry
    a tag of `degree` facts; under k, the index call would be followed by the exact scan
    anyway (~15-35 ms wasted at 100,000 facts), so it is skipped. A tag that common among the
    neighbours keeps the index path (an exact scan of it would cost more).
    """
    if total <= 0:
        return EXACT_MAX
    return min(EXACT_MAX, math.ceil(k * total / vec_fetch))


def scope_exact(k: int, vec_fetch: int, size: ScopeSize) -> bool:
    """Whether the scope's facts are scored exactly without asking the vector index first.

    Of `vec_fetch` neighbours from the whole database, about vec_fetch * share fall in the
    scope; under k, the exact scan follows the index call anyway. A 10,000-fact scope beside
    a million other facts: the index call (k = 1,000, ~95 ms) came back with ~10 of its facts
    and the scan ran after it (bench/latency.py --beside).
    """
    return 0 < size.live <= EXACT_MAX and vec_fetch * size.share < k


class ScopeSize(NamedTuple):
    """A scope's share of its vector shard's facts, its live facts, and the shard's facts;
    `of_database`: its share of all facts, which the full-text indexes hold."""

    share: float
    live: int
    total: int
    of_database: float = 0.0


class _Shares:
    """Per database and scope: its ScopeSize, cached.

    Bounded, so a service that sees many scopes keeps a flat memory: past SHARES_KEPT scopes the
    least recently computed entry is dropped (it is recomputed on its next search).

    Per process, and correct with any number of replicas: each derives its entries from the
    database, holds them SHARE_TTL before reading them again, and a share only sizes how wide
    the vector index is asked. A share made stale by writes through another replica costs time,
    never results (search_candidates.cypher falls back to an exact scan when the index comes
    back short). Only a scope's first search waits for its share: past SHARE_TTL the entry is
    still answered and read again on a worker, one read at a time per scope (the count behind
    it walks the scope's facts: ~110 ms at 1,000,000 facts in one scope, which every search
    after the TTL used to wait for).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: weakref.WeakKeyDictionary[
            Database, OrderedDict[str, tuple[ScopeSize, float]]
        ] = weakref.WeakKeyDictionary()
        self._reading: set[tuple[int, str]] = set()

    def share(self, db: Database, scope: str) -> ScopeSize:
        now = time.monotonic()
        with self._lock:
            per_db = self._cache.get(db)
            known = per_db.get(scope) if per_db is not None else None
            key = (id(db), scope)
            stale = known is not None and known[1] <= now and key not in self._reading
            if stale:
                self._reading.add(key)
        if stale:
            _REFRESHES.submit(self._read_again, weakref.ref(db), key)
        if known is not None:
            return known[0]
        return self._read(db, scope)

    def _read_again(self, ref: weakref.ref[Database], key: tuple[int, str]) -> None:
        db = ref()
        try:
            if db is not None:
                self._read(db, key[1])
        except Exception:  # the stale entry stays; the next search past the TTL tries again
            log.debug("scope share of %r not read again", key[1], exc_info=True)
        finally:
            with self._lock:
                self._reading.discard(key)

    def _read(self, db: Database, scope: str) -> ScopeSize:
        now = time.monotonic()
        record = db.read("search_scope_share", {"scope": scope})[0]
        # The vector index asked is the scope's shard: its share is of that shard's facts.
        shard = int(record["shards"][vector_shards.shard_of(scope)])
        facts, live = int(record["total"]), int(record["live"])
        total = shard or facts
        size = ScopeSize(
            live / total if total else 0.0, live, total, live / facts if facts else 0.0
        )
        with self._lock:
            known_scopes = self._cache.setdefault(db, OrderedDict())
            known_scopes[scope] = (size, now + SHARE_TTL)
            known_scopes.move_to_end(scope)
            while len(known_scopes) > SHARES_KEPT:
                known_scopes.popitem(last=False)
        return size


# Reads scope shares again past their TTL (_Shares), off the searches' path.
_REFRESHES = ThreadPoolExecutor(max_workers=1, thread_name_prefix="scope-share")
shares = _Shares()


def refreshes_done(timeout: float | None = None) -> None:
    """Wait until the share reads queued so far have run (the one worker runs them in order).

    For whoever must know no read of theirs is still to come: a test that made shares stale,
    so that its reads do not land in the next test's database hooks.
    """
    _REFRESHES.submit(lambda: None).result(timeout)


# Runs the passage lists of overlapped searches (fetch_overlapped); a worker only waits on Neo4j.
_PASSAGE_LISTS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="search-passages")


def fetch_overlapped(
    db: Database,
    scope: str,
    options: SearchOptions,
    *,
    lucene: str,
    embed: Callable[[], list[float] | None],
    now: datetime,
    full: bool = True,
    every_cosine: bool = True,
) -> Candidates:
    """The candidates as two concurrent queries: the passage list, and every other list.

    The passage list is the costliest index call (its entries are five turns long: about 6 of
    the 17 ms of the candidate query at 1,000,000 facts in one scope) and needs no vector, so it
    is asked on a worker thread while this thread embeds the query and asks the full-text and
    vector lists (and the entity expansion, which seeds from those two). Neo4j runs each query
    on one core, so on 2 cores the halves overlap once the model's threads stop spinning when a
    run returns (graph/platform/embedding.py STOP_SPINNING) and queries embed on one thread
    (FACTGRAPH_QUERY_THREADS): hybrid search at 1,000,000 facts went from 28 / 40 to 21 / 30 ms
    p50 / p95 (bench/README "Threads that wait"). Same Cypher, same lists as
    `fetch`. The worker runs in this thread's context, so its query waits for the same
    bookmarks (graph/storage/bookmarks.py) as this one: both read at least what the caller wrote.
    """
    passages = _PASSAGE_LISTS.submit(
        contextvars.copy_context().run,
        fetch,
        db,
        scope,
        options,
        lucene=lucene,
        vector=None,
        now=now,
        full=full,
        fulltext=False,
    )
    try:
        vector = embed()
        rest = fetch(
            db,
            scope,
            options,
            lucene=lucene,
            vector=vector,
            now=now,
            full=full,
            passages=False,
            every_cosine=every_cosine,
        )
    finally:
        passage = passages.result()
    return merged(passage, rest)


def merged(passage: Candidates, rest: Candidates) -> Candidates:
    """One search's candidates from its passage half and the half with every other list."""
    return Candidates(
        lists={**rest.lists, **passage.lists},
        briefs={**passage.briefs, **rest.briefs},
        facts={**passage.facts, **rest.facts},
        fulltext_exhaustive=rest.fulltext_exhaustive,
        vector_exact=rest.vector_exact,
        cosines=rest.cosines,
    )


def text_query(
    scope: str,
    lucene: str,
    options: SearchOptions,
    size: ScopeSize | None = None,
    field: str = "index_text",
) -> str:
    """The Lucene query of a full-text list: scoped, unless `size` says the scope holds most
    of the facts (UNSCOPED_SHARE). The paired floor of bench/latency.py asks the same."""
    return scoped(
        scope,
        lucene,
        tags=options.tags,
        partitions=options.partitions,
        field=field,
        scope_clause=has_scope_clause(size),
    )


def fetch(
    db: Database,
    scope: str,
    options: SearchOptions,
    *,
    lucene: str,
    vector: list[float] | None,
    now: datetime,
    full: bool = True,
    fulltext: bool = True,
    passages: bool = True,
    every_cosine: bool = True,
) -> Candidates:
    """Every candidate list the options ask for; `full=False` ships briefs only (see Brief).
    `fulltext` / `passages` off leave that list out (fetch_overlapped asks it separately).
    `every_cosine` off leaves the cosines of candidates the vector list did not find unread:
    reading them cost hybrid search ~5 ms p50 at 100,000 facts, and a search that neither
    thresholds nor orders by relevance needs them of its returned hits only
    (graph/search/engine.py)."""
    k = options.candidate_top_k
    params = filter_params(scope, options, now)
    size = shares.share(db, scope)
    filtered = db.server_version.in_index_filters
    vec_fetch = (
        filtered_fetch_size(k, options) if filtered else fetch_size(k, size.share, size.live)
    )
    words = options.mode is not Mode.VECTOR
    passages = passages and words and options.passages
    fulltext = fulltext and words
    params.update(
        # The Lucene queries travel in one map (`$text.lucene`, ...), not as string parameters:
        # Neo4j keys its plan cache on each string parameter's length, in coarse buckets, so a
        # question whose query crossed 100 characters made the server plan this query again,
        # 600-800 ms at 100,000 facts (bench/README "Plans keyed by a string's length").
        text={
            "lucene": text_query(scope, lucene, options, size) if fulltext else "",
            "lucene_scoped": text_query(scope, lucene, options) if fulltext else "",
            "passage_lucene": text_query(scope, lucene, options, size, "passage_text")
            if passages
            else "",
            "passage_lucene_scoped": text_query(scope, lucene, options, None, "passage_text")
            if passages
            else "",
            "stems": stems(lucene.split()),
        },
        vector=vector if options.mode is not Mode.FULLTEXT else None,
        vector_index=vector_shards.index(scope),
        chunk_index=vector_shards.chunk_index(scope),
        chunk_fetch=min(max(VECTOR_FETCH_MAX, vec_fetch), CHUNK_FANOUT * vec_fetch),
        k=k,
        fetch=text_fetch_size(k, options, size),
        vec_fetch=vec_fetch,
        vec_retry=min(WIDE, vec_fetch * RETRY_WIDER),
        wide=max(WIDE, k * OVERFETCH),
        exact_max=EXACT_MAX,
        tag_exact_max=tag_exact_max(k, vec_fetch, size.live if filtered else size.total),
        scope_exact=not filtered and scope_exact(k, vec_fetch, size),
        hops=options.expand_hops,
        seeds=EXPANSION_SEEDS,
        full=full,
        chunk_discount=options.chunk_discount,
        every_cosine=every_cosine,
    )
    record = db.read_fast("search_candidates", params)[0]
    facts = {node["id"]: Fact.from_node(node) for node in record["facts"]} if full else {}
    briefs = (
        {
            node["id"]: Brief.of(facts[node["id"]], tuple(node.get("matched") or ()))
            for node in record["facts"]
        }
        if full
        else {node["id"]: Brief.from_map(node) for node in record["facts"]}
    )
    lists = {
        name: [(str(x["id"]), float(x["score"])) for x in record[name]]
        for name in ("fulltext", "vector", "graph", "passage")
        if record[name]
    }
    cosines = {fid: score for fid, score in lists.get("vector", ())}
    cosines.update((str(x["id"]), float(x["score"])) for x in record["cosines"])
    return Candidates(
        lists=lists,
        briefs=briefs,
        facts=facts,
        fulltext_exhaustive=bool(record["ft_exhaustive"]),
        vector_exact=bool(record["vec_exact"]),
        cosines=cosines,
    )


def missing_cosines(
    db: Database,
    scope: str,
    found: Candidates,
    vector: list[float],
    chunk_discount: float = DEFAULT_CHUNK_DISCOUNT,
) -> Candidates:
    """`found` with the cosines of candidates that came without one: the passage half of an
    overlapped search (fetch_overlapped) is asked before the query is embedded."""
    missing = [fid for fid in found.briefs if fid not in found.cosines]
    if not missing:
        return found
    params = {
        "scope": scope,
        "ask": {"ids": missing},
        "vector": vector,
        "chunk_discount": chunk_discount,
    }
    rows = db.read_fast("search_cosines", params)
    cosines = {**found.cosines, **{str(r["id"]): float(r["score"]) for r in rows}}
    return dataclasses.replace(found, cosines=cosines)
