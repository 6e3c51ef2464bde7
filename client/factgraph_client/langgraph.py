"""LangGraph's `BaseStore` on factgraph: `FactgraphStore` and `AsyncFactgraphStore`.

An item is a fact of the client's scope:

- namespace -> the fact's partition, as a compact JSON array (`["users","alice"]`): a string
  prefix of that text is exactly a namespace prefix (the closing quote of a label is part of
  it), case-sensitive and with no wildcard characters, so `search(("foo",))` never returns
  `("foobar",)` and labels keep any character (newlines, `%`, `*`, non-ASCII);
- key -> the fact's subject (looked up by `factsByKey`);
- value -> kept whole in the fact's metadata (`metadata.langgraph.value`), with the namespace,
  the key, the first creation time and the indexed fields;
- the `index` fields (default `$`, the whole value) -> the fact's text, which factgraph
  indexes for full-text search, each field a section of it (between U+001E characters) that
  factgraph embeds as a vector of its own: a search scores an item by its best field. The text
  ends (after U+001F, which no vector takes in) with a short digest of (namespace, key, value),
  because factgraph deduplicates identical texts across a scope and two keys may hold the same
  value.

`put` on an existing key supersedes the live fact (its history stays readable through
factgraph: `Client.history(fact_id)`), `delete` forgets it, `search` is factgraph's hybrid
search (or a newest-first listing without a query), `list_namespaces` reads the partitions in
use. A search with a query returns a `SearchItems`: LangGraph's list of items, with the user's
standing instructions and preferences that bear on the query in `.standing` (factgraph
recognises them when an item is written), which an agent puts in its prompt. Filters are
evaluated here, on the values the service returned: they never become Cypher or Lucene text.
See docs/langgraph.md for the differences from LangGraph's reference stores.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import math
import re
from collections.abc import Generator, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
    get_text_at_path,
)

from factgraph_client import _ops
from factgraph_client._core import Call, graphql
from factgraph_client.client import AsyncClient, Client
from factgraph_client.errors import FactgraphError
from factgraph_client.types import FACT_FIELDS, Fact, MemoryInput, Standing

T = TypeVar("T")
# One operation's conversation with the service: it yields Calls and is sent their answers.
Steps = Generator[Call[Any], Any, T]

META = "langgraph"
TAG = "langgraph"
NOT_INDEXED = "langgraph:not-indexed"
PAGE = 1_000  # the service's largest listing page
SEARCH_TOP_K = 100  # the service's largest search
RACE_RETRIES = 3
# Between the indexed fields of an item's text: the service embeds each section (the text
# between two U+001E) as a vector of its own and scores the item by its best one, as
# LangGraph's stores score an item by its best field (graph/write/chunks.py).
SECTION = "\x1e"
# Before the digest: the service embeds no part of a text after U+001F, so the digest does not
# weigh on the last field's vector (graph/write/chunks.py).
TAIL = "\x1f"


class SearchItems(list[SearchItem]):
    """A search's items, as LangGraph returns them, and beside them `standing`: the scope's
    standing instructions and preferences that bear on the query (at most the store's
    `standing_limit`, best first; empty for a listing without a query). LangGraph's search
    has no place for them, and an agent needs them in its prompt whatever the items are."""

    def __init__(
        self,
        items: Iterable[SearchItem] = (),
        standing: Iterable[Standing] = (),
        answerable: bool | None = None,
    ) -> None:
        super().__init__(items)
        self.standing: list[Standing] = list(standing)
        # Whether anything in the scope answers the query (factgraph's `answerable`, read
        # before the store's filters): False says "nothing here"; None for a listing.
        self.answerable = answerable


def partition_of(namespace: Sequence[str]) -> str:
    return json.dumps(list(namespace), ensure_ascii=False, separators=(",", ":"))


def prefix_of(namespace: Sequence[str]) -> str | None:
    """The partition prefix of every namespace starting with `namespace` (None: all)."""
    if not namespace:
        return None
    return partition_of(namespace)[:-1]  # without the closing bracket


def namespace_of(partition: str) -> tuple[str, ...] | None:
    """The namespace a partition encodes; None for a partition the store did not write."""
    if not partition.startswith("["):
        return None
    try:
        decoded = json.loads(partition)
    except ValueError:
        return None
    if not isinstance(decoded, list) or not all(isinstance(x, str) for x in decoded):
        return None
    return tuple(decoded)


class _Logic:
    """Everything both stores do, written once as generators of `Call`s (no I/O here)."""

    def __init__(
        self,
        scope: str,
        index: IndexConfig | None,
        importance: float,
        min_score: float,
        standing_limit: int = 5,
    ) -> None:
        if isinstance(min_score, bool) or not 0.0 <= min_score <= 1.0:
            raise ValueError(f"min_score must be between 0 and 1, got {min_score!r}")
        if (
            isinstance(standing_limit, bool)
            or not isinstance(standing_limit, int)
            or not 0 <= standing_limit <= 20
        ):
            raise ValueError(f"standing_limit must be between 0 and 20, got {standing_limit!r}")
        self.standing_limit = standing_limit
        self.scope = scope
        fields = (index or {}).get("fields") or ["$"]
        self.fields: list[str] = list(fields)
        self.importance = importance
        self.min_score = float(min_score)

    # -- one op -----------------------------------------------------------------------------
    def run(self, op: Op) -> Steps[Result]:
        validate_op_namespace(op)
        if isinstance(op, GetOp):
            return (yield from self.get(op))
        if isinstance(op, PutOp):
            yield from self.put(op)
            return None
        if isinstance(op, SearchOp):
            return (yield from self.search(op))
        if isinstance(op, ListNamespacesOp):
            return (yield from self.list_namespaces(op))
        raise ValueError(f"unknown operation {type(op).__name__}")

    def get(self, op: GetOp) -> Steps[Item | None]:
        live = yield from self._live(op.namespace, op.key)
        if not live:
            return None
        if op.refresh_ttl:
            yield from self._refresh(live[:1])
        return item_of(live[0])

    def put(self, op: PutOp) -> Steps[None]:
        # A concurrent writer of the same key can retire the fact read here before this write
        # reaches it (CONFLICT): read the key again and decide again, a bounded number of times.
        for attempt in range(RACE_RETRIES + 1):
            try:
                yield from self._put_once(op)
                return None
            except FactgraphError as exc:
                if exc.code != "CONFLICT" or attempt == RACE_RETRIES:
                    raise
        return None

    def _put_once(self, op: PutOp) -> Steps[None]:
        live = yield from self._live(op.namespace, op.key)
        if op.value is None:
            for fact in live:
                yield from self._forget(fact.id, "deleted through the LangGraph store")
            return None
        newest = live[0] if live else None
        created = _meta(newest).get("created_at") if newest else None
        item = self._input(op, created_at=created)
        if newest is not None and newest.text == item.content:
            # The same value again: nothing to supersede; only the TTL moves.
            if op.ttl is not None and op.ttl > 0:
                yield _refresh_call(self.scope, [newest.id], [float(op.ttl)])
        elif newest is not None:
            yield _ops.supersede(self.scope, newest.id, item, "put through the LangGraph store")
        else:
            yield _ops.remember_graphql(self.scope, item, pipeline=False)
        for stale in live[1:]:  # left by two writers racing on one new key
            yield from self._forget(stale.id, "an older duplicate of a LangGraph key")
        return None

    def _forget(self, fact_id: str, reason: str) -> Steps[None]:
        try:
            yield _ops.forget(self.scope, fact_id, reason)
        except FactgraphError as exc:  # already retired by a concurrent writer: same outcome
            if exc.code not in ("CONFLICT", "NOT_FOUND"):
                raise
        return None

    def search(self, op: SearchOp) -> Steps[SearchItems]:
        check_filter(op.filter)
        if op.limit <= 0 or op.offset < 0:
            return SearchItems()
        standing: list[Standing] = []
        answerable: bool | None = None
        if op.query:
            found, standing, answerable = yield from self._ranked(op)
        else:
            found = yield from self._listed(op)
        if op.refresh_ttl:
            yield from self._refresh([fact for fact, _ in found])
        return SearchItems(
            (search_item_of(fact, score) for fact, score in found), standing, answerable
        )

    def list_namespaces(self, op: ListNamespacesOp) -> Steps[list[tuple[str, ...]]]:
        conditions = op.match_conditions or ()
        literal: list[str] = []
        for condition in conditions:  # the literal head of a prefix narrows the read
            if condition.match_type == "prefix":
                for label in condition.path:
                    if label == "*":
                        break
                    literal.append(label)
                break
        partitions = yield _partitions_call(self.scope, prefix_of(literal))
        namespaces = {ns for p in partitions if (ns := namespace_of(p)) is not None}
        kept = [ns for ns in namespaces if all(matches(c, ns) for c in conditions)]
        if op.max_depth is not None:
            kept = list({ns[: op.max_depth] for ns in kept})
        return sorted(kept)[op.offset : op.offset + op.limit]

    # -- parts ------------------------------------------------------------------------------
    def _live(self, namespace: tuple[str, ...], key: str) -> Steps[list[Fact]]:
        facts: list[Fact] = yield _by_key_call(self.scope, partition_of(namespace), [key])
        return [f for f in facts if _meta(f).get("key") == key]

    def _ranked(
        self, op: SearchOp
    ) -> Steps[tuple[list[tuple[Fact, float | None]], list[Standing], bool | None]]:
        prefix = prefix_of(op.namespace_prefix)
        partitions: list[str] | None = None
        if prefix is not None:
            partitions = yield _partitions_call(self.scope, prefix)
            if not partitions:
                return [], [], False
        wanted = op.offset + op.limit
        top_k = SEARCH_TOP_K if op.filter else min(SEARCH_TOP_K, max(wanted * 2, 10))
        hits, standing, answerable = yield _search_call(
            self.scope, op.query or "", top_k, partitions, self.min_score, self.standing_limit
        )
        found: list[tuple[Fact, float | None]] = []
        for fact, score in hits:
            if NOT_INDEXED in fact.tags or META not in fact.metadata:
                continue
            if op.filter and not matches_filter(_value(fact), op.filter):
                continue
            found.append((fact, score))
        page = found[op.offset : wanted]
        if len(page) < op.limit:  # as LangGraph's stores: items put with index=False fill up
            page += yield from self._not_indexed(prefix, op, op.limit - len(page))
        return page, standing, answerable

    def _not_indexed(
        self, prefix: str | None, op: SearchOp, wanted: int
    ) -> Steps[list[tuple[Fact, float | None]]]:
        """Up to `wanted` items of the namespace prefix put with `index=False` (and matching
        the filter), newest first, with score None: LangGraph's in-memory and SQLite stores
        append them after the scored items of a search with a query, up to its limit."""
        kept: list[tuple[Fact, float | None]] = []
        offset = 0
        while len(kept) < wanted:
            page = yield _partition_facts_call(self.scope, prefix, PAGE, offset)
            for fact in page:
                if NOT_INDEXED not in fact.tags or META not in fact.metadata:
                    continue
                if op.filter and not matches_filter(_value(fact), op.filter):
                    continue
                kept.append((fact, None))
            if len(page) < PAGE:
                break
            offset += PAGE
        return kept[:wanted]

    def _listed(self, op: SearchOp) -> Steps[list[tuple[Fact, float | None]]]:
        prefix = prefix_of(op.namespace_prefix)
        if not op.filter:
            page = yield _partition_facts_call(self.scope, prefix, op.limit, op.offset)
            facts = [f for f in page if META in f.metadata][: op.limit]
            return [(f, None) for f in facts]
        kept: list[Fact] = []
        offset = 0
        wanted = op.offset + op.limit
        while len(kept) < wanted:
            page = yield _partition_facts_call(self.scope, prefix, PAGE, offset)
            kept += [f for f in page if META in f.metadata and matches_filter(_value(f), op.filter)]
            if len(page) < PAGE:
                break
            offset += PAGE
        return [(f, None) for f in kept[op.offset : wanted]]

    def _refresh(self, facts: Sequence[Fact]) -> Steps[None]:
        ids, ttls = [], []
        for fact in facts:
            minutes = _meta(fact).get("ttl")
            if fact.expires_at is not None and isinstance(minutes, int | float) and minutes > 0:
                ids.append(fact.id)
                ttls.append(float(minutes))
        if ids:
            yield _refresh_call(self.scope, ids, ttls)
        return None

    def _input(self, op: PutOp, *, created_at: Any) -> MemoryInput:
        assert op.value is not None
        value = dict(op.value)
        fields = self.fields if op.index is None else op.index
        now = datetime.now(UTC)
        if fields is False:
            text = ""
        else:
            texts = [t for path in fields for t in get_text_at_path(value, path)]
            text = SECTION.join(t for t in texts if t.strip())
        canonical = json.dumps(
            [list(op.namespace), op.key, value], sort_keys=True, ensure_ascii=False, default=str
        )
        digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
        meta = {
            "namespace": list(op.namespace),
            "key": op.key,
            "value": value,
            "created_at": created_at if isinstance(created_at, str) else now.isoformat(),
            "index": fields if fields is not False else False,
            "ttl": op.ttl,
        }
        expires = now + timedelta(minutes=op.ttl) if op.ttl is not None else None
        return MemoryInput(
            content=f"{text}{TAIL}[{digest}]" if text else f"[{digest}]",
            subject=op.key,
            partition=partition_of(op.namespace),
            metadata={META: meta},
            tags=[TAG, NOT_INDEXED] if fields is False else [TAG],
            importance=self.importance,
            source="langgraph",
            expires_at=expires,
        )


# -- calls of the key-value view (graph/browse/keyed.py on the server) ---------------------
def _by_key_call(scope: str, partition: str, keys: list[str]) -> Call[list[Fact]]:
    query = (
        "query($s: String!, $p: String!, $k: [String!]!) "
        f"{{ factsByKey(scope: $s, partition: $p, keys: $k) {{ {FACT_FIELDS} }} }}"
    )
    return graphql(
        query,
        {"s": scope, "p": partition, "k": keys},
        lambda data: [Fact.from_graphql(f) for f in data["factsByKey"]],
    )


def _partition_facts_call(
    scope: str, prefix: str | None, first: int, offset: int
) -> Call[list[Fact]]:
    query = (
        "query($s: String!, $p: String, $f: Int!, $o: Int!) "
        f"{{ partitionFacts(scope: $s, prefix: $p, first: $f, offset: $o) {{ {FACT_FIELDS} }} }}"
    )
    return graphql(
        query,
        {"s": scope, "p": prefix, "f": max(1, min(first, PAGE)), "o": offset},
        lambda data: [Fact.from_graphql(f) for f in data["partitionFacts"]],
    )


def _partitions_call(scope: str, prefix: str | None) -> Call[list[str]]:
    query = "query($s: String!, $p: String) { partitions(scope: $s, prefix: $p) }"
    return graphql(query, {"s": scope, "p": prefix}, lambda data: list(data["partitions"]))


def _search_call(
    scope: str,
    query: str,
    top_k: int,
    partitions: list[str] | None,
    min_score: float,
    standing_limit: int,
) -> Call[tuple[list[tuple[Fact, float]], list[Standing], bool | None]]:
    # Relevance alone orders the hits (MODEL fusion, no importance or recency mixed in), so an
    # item's score is its relevance: it depends on nothing but the item and the query, and comes
    # back sorted, as LangGraph's stores do. Turn passages are off: store items are not
    # conversation turns. `minScore` leaves out, in the service and before `topK` is counted,
    # the hits whose relevance is below it. The standing statements that bear on the query
    # come in the same answer, from the whole scope (not only the namespace searched).
    gql = (
        "query($s: String!, $q: String!, $o: SearchOptionsInput) "
        "{ search(scope: $s, query: $q, options: $o) "
        f"{{ hits {{ score fact {{ {FACT_FIELDS} }} }} "
        f"standing {{ similarity fact {{ standing {FACT_FIELDS} }} }} answerable }} }}"
    )
    options = {
        "topK": top_k,
        "partitions": partitions,
        "fusion": {"method": "MODEL"},
        "weights": {"relevance": 1.0, "importance": 0.0, "recency": 0.0},
        "passages": False,
        "relatedLimit": 0,
        "chunkDiscount": 0.0,  # every field's vector counts as it is: the best one scores
        "minScore": min_score,
        "standingLimit": standing_limit,
    }
    return graphql(
        gql,
        {"s": scope, "q": query, "o": options},
        lambda data: (
            [
                (Fact.from_graphql(hit["fact"]), float(hit["score"]))
                for hit in data["search"]["hits"]
            ],
            [
                read_as_statement(
                    Standing(
                        Fact.from_graphql(s["fact"]),
                        str(s["fact"]["standing"]).lower(),
                        float(s["similarity"]),
                    )
                )
                for s in data["search"]["standing"]
            ],
            data["search"].get("answerable"),
        ),
    )


def _refresh_call(scope: str, ids: list[str], minutes: list[float]) -> Call[int]:
    query = (
        "mutation($s: String!, $ids: [ID!]!, $m: [Float!]!) "
        "{ refreshExpiry(scope: $s, ids: $ids, minutes: $m) }"
    )
    variables = {"s": scope, "ids": ids, "m": minutes}
    return graphql(query, variables, lambda data: int(data["refreshExpiry"]))


# -- items, filters, namespaces -----------------------------------------------------------------
def validate_op_namespace(op: Op) -> None:
    """LangGraph's label rules for ops handed to `batch` directly (its put/get methods check
    them, its batch does not): labels are non-empty strings without `.` or NUL. The same as
    langgraph-checkpoint 4's `validate_op_namespace`, kept here for the 3.x line, which has none."""
    if isinstance(op, GetOp | PutOp):
        paths: list[tuple[str, ...]] = [op.namespace]
    elif isinstance(op, SearchOp):
        paths = [op.namespace_prefix]
    else:
        paths = [tuple(c.path) for c in op.match_conditions or ()]
    for path in paths:
        for label in path:
            if not isinstance(label, str) or not label or "." in label or "\x00" in label:
                raise InvalidNamespaceError(
                    f"invalid namespace label {label!r} in {path}: labels are non-empty "
                    "strings without '.' or NUL"
                )


def _meta(fact: Fact | None) -> dict[str, Any]:
    meta = fact.metadata.get(META) if fact is not None else None
    return meta if isinstance(meta, dict) else {}


def _value(fact: Fact) -> dict[str, Any]:
    value = _meta(fact).get("value")
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> list[str]:
    """The text leaves of a value, in order (keys left out)."""
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _strings(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _strings(v)]
    return []


def read_as_statement(standing: Standing) -> Standing:
    """A standing item as the user's words: its value's text, without the JSON and the digest
    the stored text carries (an item's text is what factgraph indexes, `_Logic._input`)."""
    fact = standing.fact
    if META not in fact.metadata:
        return standing
    words = " ".join(_strings(_value(fact)))
    return dataclasses.replace(standing, fact=dataclasses.replace(fact, text=words or fact.text))


def item_of(fact: Fact) -> Item:
    meta = _meta(fact)
    updated = fact.created_at or datetime.now(UTC)
    created = meta.get("created_at")
    return Item(
        value=_value(fact),
        key=str(meta.get("key", fact.subject)),
        namespace=tuple(meta.get("namespace") or namespace_of(fact.partition) or ()),
        created_at=datetime.fromisoformat(created) if isinstance(created, str) else updated,
        updated_at=updated,
    )


def search_item_of(fact: Fact, score: float | None) -> SearchItem:
    item = item_of(fact)
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def matches(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    """LangGraph's namespace match: `*` is one whole label, anything else is literal."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(p == "*" or n == p for n, p in pairs)


_MISSING = object()
# LangGraph's SQLite store refuses any other filter key (checkpoint-sqlite's
# `_validate_filter_key`); `fullmatch` also refuses a key ending in a newline, which its
# `re.match(...$)` lets through.
_FILTER_KEY = re.compile(r"[a-zA-Z0-9_.-]+")


def check_filter(filter: Mapping[str, Any] | None) -> None:
    """ValueError for a filter key no field could be matched by, as the SQLite store says it:
    filters run here and never reach a query language, so nothing could be injected, but a
    store that quietly matched nothing hid the mistake."""
    for key in filter or ():
        if not isinstance(key, str) or not _FILTER_KEY.fullmatch(key):
            raise ValueError(
                f"Invalid filter key: '{key}'. Filter keys must contain only alphanumeric "
                "characters, underscores, dots, and hyphens."
            )


def _lookup(value: Mapping[str, Any], key: str) -> Any:
    """A top-level field, else a dotted path into nested objects (`user.access-level`)."""
    if key in value:
        return value[key]
    current: Any = value
    for part in key.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return _MISSING
        current = current[part]
    return current


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any]) -> bool:
    """Whether a value passes a LangGraph filter: equality, `$eq $ne $gt $gte $lt $lte`,
    nested objects, and list containment (as Postgres' jsonb `@>`)."""
    return all(_compare(_lookup(value, key), wanted) for key, wanted in filter.items())


def _compare(actual: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(isinstance(k, str) and k.startswith("$") for k in wanted):
            return all(_operator(actual, op, operand) for op, operand in wanted.items())
        if not isinstance(actual, Mapping):
            return False
        return all(_compare(_lookup(actual, k), v) for k, v in wanted.items())
    if isinstance(wanted, list | tuple):
        if not isinstance(actual, list | tuple):
            return False
        return all(any(_compare(a, w) for a in actual) for w in wanted)
    if actual is _MISSING:
        return False
    return _equal(actual, wanted)


def _equal(actual: Any, wanted: Any) -> bool:
    # JSON has one `true`: True must not equal 1 (as it does in Python).
    if isinstance(actual, bool) or isinstance(wanted, bool):
        return isinstance(actual, bool) and isinstance(wanted, bool) and actual == wanted
    return bool(actual == wanted)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return None if math.isnan(number) else number


def _operator(actual: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return actual is not _MISSING and _equal(actual, operand)
    if operator == "$ne":
        return actual is _MISSING or not _equal(actual, operand)
    if operator not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"unsupported filter operator {operator!r}")
    left = _number(actual) if actual is not _MISSING else None
    try:
        right = float(operand)
    except (TypeError, ValueError, OverflowError):
        return False
    if left is None or math.isnan(right):
        return False
    if operator == "$gt":
        return left > right
    if operator == "$gte":
        return left >= right
    if operator == "$lt":
        return left < right
    return left <= right


# -- the stores ---------------------------------------------------------------------------------
class FactgraphStore(BaseStore):
    """LangGraph's long-term memory in factgraph, on a blocking `Client`.

    `client` holds the service URL, the API key and the scope (give the store a scope of its
    own). `index={"fields": [...]}` picks the value fields embedded (default `["$"]`, the whole
    value); `dims` and `embed` are not used, factgraph embeds with its own model. `ttl`
    (minutes) follows LangGraph's TTLConfig; `importance` is the importance of every item.
    `min_score` (0..1) applies to every search with a query, since LangGraph's `search` takes
    no threshold: items whose relevance (0..1, the service's docs/search.md) is below it are
    left out. A search with a query returns `SearchItems`, whose `.standing` holds up to
    `standing_limit` (0..20; 0: none) standing instructions and preferences that bear on it;
    `standing()` lists all of the scope's.
    """

    supports_ttl = True

    def __init__(
        self,
        client: Client,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        importance: float = 5.0,
        min_score: float = 0.0,
        standing_limit: int = 5,
    ) -> None:
        self.client = client
        self.index_config = index
        self.ttl_config = ttl
        self._logic = _Logic(client.scope, index, importance, min_score, standing_limit)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs the ops one after the other, in order: a get sees an earlier put."""
        return [self._drive(self._logic.run(op)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """For a graph run with `ainvoke`: the blocking batch, on a worker thread."""
        return await asyncio.to_thread(self.batch, list(ops))

    def search(self, *args: Any, **kwargs: Any) -> SearchItems:
        """LangGraph's `search` (its arguments, on every supported line), typed as what it
        returns here: the items, with `.standing`."""
        found = super().search(*args, **kwargs)
        assert isinstance(found, SearchItems)
        return found

    def standing(self, *, kind: str | None = None) -> list[Standing]:
        """The scope's standing instructions and preferences (of one `kind`, "instruction" or
        "preference", or both), newest first."""
        return [read_as_statement(s) for s in self.client.standing(kind=kind)]

    def _drive(self, steps: Steps[T]) -> T:
        try:
            call = next(steps)
            while True:
                try:
                    answer = self.client._run(call)
                except FactgraphError as exc:
                    call = steps.throw(exc)
                else:
                    call = steps.send(answer)
        except StopIteration as done:
            result: T = done.value
            return result


class AsyncFactgraphStore(BaseStore):
    """The asyncio twin of `FactgraphStore`, on an `AsyncClient`; same arguments."""

    supports_ttl = True

    def __init__(
        self,
        client: AsyncClient,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        importance: float = 5.0,
        min_score: float = 0.0,
        standing_limit: int = 5,
    ) -> None:
        self.client = client
        self.index_config = index
        self.ttl_config = ttl
        self._logic = _Logic(client.scope, index, importance, min_score, standing_limit)
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """From another thread than the event loop's (a sync node of a graph run with
        `ainvoke`): the async batch, run on that loop. Its AsyncClient belongs to the loop, so
        a blocking call on the loop's own thread would deadlock it and is refused."""
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop or not loop.is_running():
            raise asyncio.InvalidStateError(
                "AsyncFactgraphStore's blocking methods only work from another thread than "
                "its event loop: use abatch / aget / aput / asearch, or FactgraphStore"
            )
        return asyncio.run_coroutine_threadsafe(self.abatch(ops), loop).result()

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Runs the ops one after the other, in order: a get sees an earlier put."""
        self._loop = asyncio.get_running_loop()
        return [await self._drive(self._logic.run(op)) for op in ops]

    async def asearch(self, *args: Any, **kwargs: Any) -> SearchItems:
        """LangGraph's `asearch`, typed as what it returns here: the items, with `.standing`."""
        found = await super().asearch(*args, **kwargs)
        assert isinstance(found, SearchItems)
        return found

    async def astanding(self, *, kind: str | None = None) -> list[Standing]:
        """The scope's standing instructions and preferences, newest first (`standing()`)."""
        return [read_as_statement(s) for s in await self.client.standing(kind=kind)]

    async def _drive(self, steps: Steps[T]) -> T:
        try:
            call = next(steps)
            while True:
                try:
                    answer = await self.client._run(call)
                except FactgraphError as exc:
                    call = steps.throw(exc)
                else:
                    call = steps.send(answer)
        except StopIteration as done:
            result: T = done.value
            return result


__all__ = ["AsyncFactgraphStore", "FactgraphStore", "SearchItems", "matches_filter"]
