"""factgraph_client.langgraph: LangGraph's BaseStore on factgraph, against the real service.

Each test restates a behaviour LangGraph's own store tests check (libs/checkpoint-sqlite/tests/
test_store.py and test_async_store.py in langchain-ai/langgraph; the name of the original is
in each docstring), with factgraph's model instead of their fake embedder: where they assert a
fake embedding's exact scores we assert the ranking. Then what only factgraph does: a put
supersedes, and the history of a key stays readable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import Any

import pytest
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from factgraph_client import AsyncClient, Client
from factgraph_client.langgraph import AsyncFactgraphStore, FactgraphStore, SearchItems

# The tests that reach each part of LangGraph's store interface (ops, Item and SearchItem,
# index and TTL configs, namespace errors, async batches) run again on the other line of
# langgraph-checkpoint the client supports, in a venv of its own (tests/test_langgraph_lines.py).
every_line = pytest.mark.every_langgraph_line


@pytest.fixture
def client(server_url: str, scope: str) -> Iterator[Client]:
    with Client(server_url, scope=scope, timeout=300) as fg:
        yield fg


@pytest.fixture
def store(client: Client) -> FactgraphStore:
    return FactgraphStore(client)


def keys(found: list[Any]) -> list[str]:
    return [item.key for item in found]


def items(found: list[Any]) -> list[Item]:
    assert all(isinstance(item, Item) for item in found)
    return found


@every_line
def test_batch_runs_every_op_kind_and_answers_in_order(store: FactgraphStore) -> None:
    """test_batch_order / test_abatch_order"""
    store.put(("test", "foo"), "key1", {"data": "value1"})
    store.put(("test", "bar"), "key2", {"data": "value2"})
    results = store.batch(
        [
            GetOp(namespace=("test", "foo"), key="key1"),
            PutOp(namespace=("test", "bar"), key="key2", value={"data": "value2"}),
            SearchOp(namespace_prefix=("test",), filter={"data": "value1"}, limit=10, offset=0),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            GetOp(namespace=("test",), key="key3"),
        ]
    )
    assert len(results) == 5
    first = results[0]
    assert isinstance(first, Item)
    assert (first.namespace, first.key, first.value) == (
        ("test", "foo"),
        "key1",
        {"data": "value1"},
    )
    assert results[1] is None
    assert isinstance(results[2], list) and keys(results[2]) == ["key1"]
    assert results[3] == [("test", "bar"), ("test", "foo")]
    assert results[4] is None

    reordered = store.batch(
        [
            SearchOp(namespace_prefix=("test",), filter=None, limit=5, offset=0),
            GetOp(namespace=("test", "bar"), key="key2"),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=5, offset=0),
            PutOp(namespace=("test",), key="key3", value={"data": "value3"}),
            GetOp(namespace=("test", "foo"), key="key1"),
            GetOp(namespace=("test",), key="key3"),  # sees the put just before it
        ]
    )
    assert isinstance(reordered[0], list) and sorted(keys(reordered[0])) == ["key1", "key2"]
    assert isinstance(reordered[1], Item) and reordered[1].value == {"data": "value2"}
    assert isinstance(reordered[2], list) and len(reordered[2]) == 2
    assert reordered[3] is None
    assert isinstance(reordered[4], Item) and reordered[4].value == {"data": "value1"}
    assert isinstance(reordered[5], Item) and reordered[5].value == {"data": "value3"}


def test_batch_get_put_and_delete_ops(store: FactgraphStore) -> None:
    """test_batch_get_ops, test_batch_put_ops (a put of None deletes)"""
    assert store.batch(
        [
            PutOp(namespace=("test",), key="key1", value={"data": "value1"}),
            PutOp(namespace=("test",), key="key2", value={"data": "value2"}),
            PutOp(namespace=("test",), key="key3", value=None),
        ]
    ) == [None, None, None]
    got = store.batch(
        [GetOp(("test",), "key1"), GetOp(("test",), "key2"), GetOp(("test",), "key3")]
    )
    assert [item.key if isinstance(item, Item) else None for item in got] == ["key1", "key2", None]
    store.batch([PutOp(namespace=("test",), key="key1", value=None)])
    assert store.get(("test",), "key1") is None


def test_batch_search_ops(store: FactgraphStore) -> None:
    """test_batch_search_ops"""
    for namespace, key, value in [
        (("test", "foo"), "key1", {"data": "value1", "tag": "a"}),
        (("test", "bar"), "key2", {"data": "value2", "tag": "a"}),
        (("test", "baz"), "key3", {"data": "value3", "tag": "b"}),
    ]:
        store.put(namespace, key, value)
    tagged, first_two, foo = store.batch(
        [
            SearchOp(namespace_prefix=("test",), filter={"tag": "a"}, limit=10, offset=0),
            SearchOp(namespace_prefix=("test",), filter=None, limit=2, offset=0),
            SearchOp(namespace_prefix=("test", "foo"), filter=None, limit=10, offset=0),
        ]
    )
    assert isinstance(tagged, list) and sorted(keys(tagged)) == ["key1", "key2"]
    assert isinstance(first_two, list) and len(first_two) == 2
    assert isinstance(foo, list) and [i.namespace for i in items(foo)] == [("test", "foo")]


@every_line
def test_basic_ops_and_a_put_supersedes(store: FactgraphStore, client: Client) -> None:
    """test_basic_store_ops / test_basic_store_operations, plus the history of a key"""
    namespace = ("test", "documents")
    assert store.search(("test",)) == []
    store.put(namespace, "doc1", {"title": "Test Document", "content": "Hello, World!"})
    item = store.get(namespace, "doc1")
    assert item is not None
    assert (item.namespace, item.key) == (namespace, "doc1")
    assert item.value == {"title": "Test Document", "content": "Hello, World!"}
    assert item.created_at is not None and item.updated_at is not None

    store.put(namespace, "doc1", {"title": "Updated Document", "content": "Hello, Updated!"})
    updated = store.get(namespace, "doc1")
    assert updated is not None
    assert updated.value == {"title": "Updated Document", "content": "Hello, Updated!"}
    assert updated.updated_at > item.updated_at
    assert updated.created_at == item.created_at
    assert store.get(("test", "other_documents"), "doc1") is None

    # factgraph only: the key's earlier value is kept, superseded, in its history.
    live = client.timeline(partition='["test","documents"]').items
    assert len(live) == 1
    chain = client.history(live[0].id)
    assert [f.status for f in chain] == ["superseded", "active"]
    assert [f.metadata["langgraph"]["value"]["title"] for f in chain] == [
        "Test Document",
        "Updated Document",
    ]

    store.put(namespace, "doc2", {"title": "Another"})
    store.delete(namespace, "doc1")
    assert store.get(namespace, "doc1") is None
    assert keys(store.search(namespace)) == ["doc2"]
    assert client.history(live[0].id)[-1].status == "forgotten"  # delete forgets, not purges
    store.delete(namespace, "doc2")
    store.delete(namespace, "never-there")  # deleting a missing key is no error
    assert store.search(("test",), limit=10) == []


def test_putting_the_same_value_again_changes_nothing(
    store: FactgraphStore, client: Client
) -> None:
    store.put(("same",), "k", {"v": 1})
    before = store.get(("same",), "k")
    store.put(("same",), "k", {"v": 1})
    after = store.get(("same",), "k")
    assert before is not None and after is not None
    assert after.updated_at == before.updated_at
    assert len(client.timeline(partition='["same"]').items) == 1


def test_two_keys_may_hold_the_same_value(store: FactgraphStore) -> None:
    """factgraph deduplicates identical texts; the store's items stay apart."""
    store.put(("dup",), "a", {"text": "the same words"})
    store.put(("dup",), "b", {"text": "the same words"})
    store.put(("dup", "child"), "a", {"text": "the same words"})
    assert sorted(keys(store.search(("dup",)))) == ["a", "a", "b"]
    store.delete(("dup",), "a")
    assert store.get(("dup",), "b") is not None
    assert store.get(("dup", "child"), "a") is not None


def test_list_namespaces(store: FactgraphStore) -> None:
    """test_list_namespaces, test_list_namespaces_operations, test_batch_list_namespaces_ops"""
    p = "pref"
    namespaces = [
        (p, "test", "documents", "public", p),
        (p, "test", "documents", "private", p),
        (p, "test", "images", "public", p),
        (p, "test", "images", "private", p),
        (p, "prod", "documents", "public", p),
        (p, "prod", "documents", "some", "nesting", "public", p),
        (p, "prod", "documents", "private", p),
    ]
    for namespace in namespaces:
        store.put(namespace, "dummy", {"content": "dummy"})
    assert sorted(store.list_namespaces()) == sorted(namespaces)
    assert len(store.list_namespaces(prefix=(p, "test"))) == 4
    assert {ns[1:3] for ns in store.list_namespaces(prefix=(p, "test", "documents"))} == {
        ("test", "documents")
    }
    suffixed = store.list_namespaces(suffix=("public", p))
    assert len(suffixed) == 4 and all(ns[-2] == "public" for ns in suffixed)
    both = store.list_namespaces(prefix=(p, "test"), suffix=("public", p))
    assert len(both) == 2 and all(ns[1] == "test" and ns[-2] == "public" for ns in both)
    wild = store.list_namespaces(prefix=(p, "*", "documents"))
    assert len(wild) == 5 and all(ns[2] == "documents" for ns in wild)
    assert len(store.list_namespaces(suffix=("*", "public", p))) == 4
    assert store.list_namespaces(suffix=("some", "*", "public", p)) == [
        (p, "prod", "documents", "some", "nesting", "public", p)
    ]
    assert store.list_namespaces(max_depth=2) == [(p, "prod"), (p, "test")]
    deep = store.list_namespaces(max_depth=4, prefix=(p, "*", "documents"))
    assert len(deep) == len(set(deep)) == 5
    assert all(len(ns) <= 4 for ns in deep)
    everything = store.list_namespaces(prefix=(p,))
    assert store.list_namespaces(prefix=(p,), limit=3) == everything[:3]
    assert store.list_namespaces(prefix=(p,), offset=3) == everything[3:]
    only_public = store.batch(
        [
            ListNamespacesOp(
                match_conditions=(MatchCondition("suffix", ("public", p)),),
                max_depth=None,
                limit=10,
                offset=0,
            )
        ]
    )[0]
    assert isinstance(only_public, list) and len(only_public) == 4
    for namespace in namespaces:
        store.delete(namespace, "dummy")
    assert store.list_namespaces() == []


def test_search_listing_filters_and_pages(store: FactgraphStore) -> None:
    """test_search, test_search_items: namespaces, value filters, limit and offset"""
    data = [
        (
            ("t", "documents", "user1"),
            "a",
            {"title": "Doc 1", "author": "John Doe", "tags": ["important"]},
        ),
        (
            ("t", "documents", "user2"),
            "b",
            {"title": "Doc 2", "author": "Jane Smith", "tags": ["draft"]},
        ),
        (
            ("t", "reports", "d1"),
            "c",
            {"title": "Report A", "author": "John Doe", "tags": ["final"]},
        ),
        (
            ("t", "reports", "d2"),
            "d",
            {"title": "Report B", "author": "Alice Johnson", "tags": ["draft", "x"]},
        ),
    ]
    for namespace, key, value in data:
        store.put(namespace, key, value)
    assert sorted(keys(store.search(("t", "documents")))) == ["a", "b"]
    assert sorted(keys(store.search(("t", "reports")))) == ["c", "d"]
    first, second = store.search(("t",), limit=2), store.search(("t",), limit=2, offset=2)
    assert len(first) == 2 and len(second) == 2
    assert set(keys(first)).isdisjoint(keys(second))
    assert keys(store.search(("t",))) == ["d", "c", "b", "a"]  # newest first
    assert len(store.search(("t",), offset=3)) == 1
    assert sorted(keys(store.search(("t",), filter={"author": "John Doe"}))) == ["a", "c"]
    assert sorted(keys(store.search(("t",), filter={"tags": ["draft"]}))) == ["b", "d"]
    assert keys(store.search(("t",), filter={"author": "John Doe"}, limit=1, offset=1)) == ["a"]
    assert all(item.score is None for item in store.search(("t",)))


def test_filters_compare_values(store: FactgraphStore) -> None:
    """test_numeric_filter_safety, test_boolean_filter_safety, the six operators"""
    store.put(("items",), "item1", {"price": 10, "quantity": 5, "active": True})
    store.put(("items",), "item2", {"price": 20, "quantity": 3, "active": False})
    store.put(("items",), "item3", {"price": 30, "quantity": 1, "active": True})

    def found(filter: dict[str, Any]) -> list[str]:
        return sorted(keys(store.search(("items",), filter=filter)))

    assert found({"price": {"$gt": 15}}) == ["item2", "item3"]
    assert found({"price": {"$gte": 20}}) == ["item2", "item3"]
    assert found({"price": {"$lt": 20}}) == ["item1"]
    assert found({"price": {"$lte": 20}}) == ["item1", "item2"]
    assert found({"price": {"$eq": 20}}) == ["item2"]
    assert found({"price": {"$ne": 20}}) == ["item1", "item3"]
    assert found({"price": {"$gt": 5, "$lt": 25}, "quantity": {"$gte": 3}}) == ["item1", "item2"]
    assert found({"price": {"$lt": float("inf")}}) == ["item1", "item2", "item3"]
    assert found({"price": {"$gt": float("-inf")}}) == ["item1", "item2", "item3"]
    assert found({"price": {"$eq": float("nan")}}) == []
    assert found({"price": {"$lt": 10**100}}) == ["item1", "item2", "item3"]
    assert found({"active": True}) == ["item1", "item3"]
    assert found({"active": False}) == ["item2"]
    assert found({"active": 1}) == []  # JSON true is not the number 1
    store.put(("items",), "item4", {"price": -10, "quantity": 0})
    assert found({"price": {"$lt": 0}}) == ["item4"]
    with pytest.raises(ValueError, match="operator"):
        found({"price": {"$regex": ".*"}})


def test_a_filter_key_the_sqlite_store_refuses_is_refused(store: FactgraphStore) -> None:
    """The SQLite store's rule: letters, digits, `_`, `.` and `-` (LangGraph's in-memory store
    accepts any key; a key with a blank or an accent cannot be filtered on here)."""
    store.put(("docs",), "doc", {"first name": "Ada", "naïve": True})
    message = (
        "Invalid filter key: 'first name'. Filter keys must contain only alphanumeric "
        "characters, underscores, dots, and hyphens."
    )
    with pytest.raises(ValueError) as refused:
        store.search(("docs",), filter={"first name": "Ada"})
    assert str(refused.value) == message
    for key in ["naïve", "", "a\n", "$eq", "a/b"]:
        with pytest.raises(ValueError, match="Invalid filter key"):
            store.search(("docs",), filter={key: True})
    assert keys(store.search(("docs",), filter={"Doc_1.x-y": None})) == []


def test_filter_keys_with_hyphens_digits_and_nesting(store: FactgraphStore) -> None:
    """test_filter_keys_with_hyphens_and_digits"""
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "nested"}})
    store.put(("docs",), "digit", {"123abc": "ok", "user": {"123abc": "ok2"}})
    assert keys(store.search(("docs",), filter={"access-level": "public"})) == ["hyphen"]
    assert keys(store.search(("docs",), filter={"user.access-level": "nested"})) == ["hyphen"]
    assert keys(store.search(("docs",), filter={"123abc": "ok"})) == ["digit"]
    assert keys(store.search(("docs",), filter={"user.123abc": "ok2"})) == ["digit"]
    assert keys(store.search(("docs",), filter={"user": {"123abc": "ok2"}})) == ["digit"]


def test_injection_through_filters_is_refused_or_matches_nothing(store: FactgraphStore) -> None:
    """test_sql_injection_vulnerability, test_sql_injection_filter_values; the filters never
    reach a query language, and a query is Lucene-escaped by the service. A key no field
    could have is refused as the SQLite store refuses it."""
    store.put(("docs",), "public", {"access": "public", "data": "public info"})
    store.put(("docs",), "private", {"access": "private", "data": "secret", "password": "123"})
    assert keys(store.search(("docs",), filter={"access": "public"})) == ["public"]
    for key in [
        "access') = 'public' OR '1'='1' OR json_extract(value, '$.",
        "access` = 'public' OR 1=1 //",
        "x}) MATCH (n) DETACH DELETE n //",
    ]:
        with pytest.raises(ValueError, match="Invalid filter key"):
            store.search(("docs",), filter={key: "dummy"})
        with pytest.raises(ValueError, match="Invalid filter key"):
            store.search(("docs",), query="public", filter={key: "dummy"})
    for value in [
        "public' OR '1'='1",
        "public'; --",
        "public' UNION SELECT * FROM store --",
        "public\x00' OR '1'='1",
        "''''",
        "public' OR 'א'='א",
        'public" OR 1=1 RETURN n //',
    ]:
        assert store.search(("docs",), filter={"access": value}) == []
    store.put(("docs",), "obrien", {"title": "O'Brien's Document", "access": "public"})
    found = store.search(("docs",), filter={"title": "O'Brien's Document"})
    assert keys(found) == ["obrien"]
    for query in ['secret" OR data:*', "*:*", "access:public AND (", "} RETURN 1 //"]:
        for item in store.search(("docs",), query=query):
            assert item.namespace == ("docs",)
    assert store.get(("docs",), "private") is not None  # nothing was deleted


def test_search_by_meaning(store: FactgraphStore) -> None:
    """test_vector_insert_with_auto_embedding, test_vector_search_with_filters"""
    for key, value in [
        ("doc1", {"text": "short text"}),
        ("doc2", {"text": "longer text document"}),
        ("doc3", {"text": "longest text document here"}),
        ("doc4", {"description": "text in description field"}),
        ("doc5", {"content": "text in content field"}),
        ("doc6", {"body": "text in body field"}),
    ]:
        store.put(("test",), key, value)
    ranked = keys(store.search(("test",), query="long text document"))
    assert "doc2" in ranked and "doc3" in ranked

    for key, fruit in [
        ("a1", {"text": "red apple", "color": "red", "score": 4.5}),
        ("a2", {"text": "red car", "color": "red", "score": 3.0}),
        ("a3", {"text": "green apple", "color": "green", "score": 4.0}),
        ("a4", {"text": "blue car", "color": "blue", "score": 3.5}),
    ]:
        store.put(("fruit",), key, fruit)
    apples = store.search(("fruit",), query="apple", filter={"color": "red"})
    assert keys(apples) == ["a1"] or keys(apples)[0] == "a1"
    assert set(keys(apples)) == {"a1", "a2"}
    assert keys(store.search(("fruit",), query="car", filter={"color": "red"}))[0] == "a2"
    above = store.search(("fruit",), query="a blue vehicle", filter={"score": {"$gt": 3.2}})
    assert keys(above)[0] == "a4" and set(keys(above)) == {"a1", "a3", "a4"}
    green = store.search(
        ("fruit",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"}
    )
    assert keys(green) == ["a3"]
    for item in apples:
        assert item.score is not None and 0 < item.score <= 1


def test_an_update_is_searched_by_its_new_value_and_index_false_comes_last_unscored(
    store: FactgraphStore,
) -> None:
    """test_vector_update_with_embedding"""
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("test",), "doc2", {"text": "something about dogs"})
    store.put(("test",), "doc3", {"text": "text about birds"})
    initial = store.search(("test",), query="Zany Xerxes")
    assert initial[0].key == "doc1"
    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = store.search(("test",), query="Zany Xerxes")
    assert not after or after[0].key != "doc1" or (after[0].score or 0) < (initial[0].score or 0)
    assert store.search(("test",), query="new text about dogs")[0].key == "doc1"
    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert "doc4" not in keys(store.search(("test",), query="new text about dogs", limit=3))
    assert "doc4" in keys(store.search(("test",)))  # still listed and readable
    assert store.get(("test",), "doc4") is not None
    # Past the scored items, up to the limit, it comes back with no score, as from LangGraph's
    # in-memory and SQLite stores.
    found = store.search(("test",), query="new text about dogs", limit=10)
    assert [(item.key, item.score) for item in found][-1] == ("doc4", None)
    assert all(item.score is not None for item in found[:-1])


def test_search_pages_by_score(store: FactgraphStore) -> None:
    """test_vector_search_pagination"""
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = store.search(("test",), query="test document", limit=2)
    page2 = store.search(("test",), query="test document", limit=2, offset=2)
    assert len(page1) == 2 and len(page2) == 2
    assert set(keys(page1)).isdisjoint(keys(page2))
    scores = [item.score or 0.0 for item in store.search(("test",), query="test document")]
    assert len(scores) == 5
    assert scores == sorted(scores, reverse=True)
    assert (page1[1].score or 0) >= (page2[0].score or 0)


def test_min_score_leaves_out_the_items_below_it(
    client: Client, server_url: str, scope: str
) -> None:
    """Not in LangGraph's tests (its `search` takes no threshold): a store made with
    `min_score` leaves out of every search with a query the items whose relevance is below it,
    and keeps the others, sync and async alike. A listing (no query) is not thresholded."""
    plain = FactgraphStore(client)
    for key, text in [
        ("sofa", "The cat sleeps on the red sofa"),
        ("taxes", "Quarterly taxes are due in April"),
        ("bowl", "The cat's bowl is in the kitchen"),
    ]:
        plain.put(("notes",), key, {"text": text})
    question = "where does the cat nap?"
    scores = {item.key: item.score or 0.0 for item in plain.search(("notes",), query=question)}
    assert len(scores) == 3 and all(0 <= s <= 1 for s in scores.values())
    cut = (max(scores.values()) + min(scores.values())) / 2
    above = {key for key, score in scores.items() if score >= cut}
    assert 0 < len(above) < 3

    strict = FactgraphStore(client, min_score=cut)
    kept = strict.search(("notes",), query=question)
    assert set(keys(kept)) == above
    assert all((item.score or 0.0) >= cut for item in kept)
    assert len(strict.search(("notes",))) == 3

    async def asynchronously() -> set[str]:
        async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
            store = AsyncFactgraphStore(fg, min_score=cut)
            return set(keys(await store.asearch(("notes",), query=question)))

    assert asyncio.run(asynchronously()) == above
    with pytest.raises(ValueError, match="min_score"):
        FactgraphStore(client, min_score=1.5)


def test_a_search_carries_the_standing_instructions_and_preferences(
    store: FactgraphStore, client: Client, server_url: str, scope: str
) -> None:
    """Not in LangGraph's tests: a standing instruction or preference put in the store is
    recognised, and a later search whose query shares no words with it hands it to the agent
    in `.standing`, beside LangGraph's list of items, from any namespace of the scope."""
    store.put(("prefs",), "style", {"text": "Always include type hints in Python code."})
    store.put(("prefs",), "db", {"text": "I prefer PostgreSQL over MySQL for new projects."})
    store.put(("notes",), "deploy", {"text": "The deploy ran on Friday and took twelve minutes."})
    question = "write the Python code of a service that stores orders in a database"
    found = store.search(("notes",), query=question)
    assert isinstance(found, SearchItems) and keys(found) == ["deploy"]
    assert all(isinstance(item, SearchItem) for item in found)
    texts = {s.kind: s.fact.text for s in found.standing}
    # Stored as its value's JSON (the `$` field) and a digest, handed back as the user's words.
    assert texts == {
        "instruction": "Always include type hints in Python code.",
        "preference": "I prefer PostgreSQL over MySQL for new projects.",
    }
    assert all(s.similarity is not None and 0 < s.similarity <= 1 for s in found.standing)
    assert store.search(("notes",)).standing == []  # a listing has no query to bear on
    assert (
        FactgraphStore(client, standing_limit=0).search(("notes",), query=question).standing == []
    )
    assert [(s.kind, s.fact.text) for s in store.standing(kind="preference")] == [
        ("preference", "I prefer PostgreSQL over MySQL for new projects.")
    ]

    async def asynchronously() -> list[str]:
        async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
            astore = AsyncFactgraphStore(fg)
            found = await astore.asearch(("notes",), query=question)
            listed = await astore.astanding()
            return sorted(s.kind for s in found.standing) + sorted(s.kind for s in listed)

    assert asyncio.run(asynchronously()) == ["instruction", "preference"] * 2
    with pytest.raises(ValueError, match="standing_limit"):
        FactgraphStore(client, standing_limit=21)


def test_search_edge_cases(store: FactgraphStore) -> None:
    """test_vector_search_edge_cases: empty, missing, long and punctuated queries"""
    store.put(("test",), "doc1", {"text": "test document"})
    for query in ["", None, "test " * 100, "test!@#$%^&*()"]:
        assert keys(store.search(("test",), query=query)) == ["doc1"]


@every_line
def test_index_fields_choose_the_searched_text(client: Client) -> None:
    """test_embed_with_path, test_embed_with_path_operation_config"""
    store = FactgraphStore(client, index={"fields": ["key0", "key1", "key3"]})
    store.put(("test",), "doc1", {"key1": "volcano", "key2": "violin", "key3": "glacier"})
    store.put(
        ("test",),
        "doc2",
        {"key0": "harbour", "key1": "orchard", "key2": "desert", "key3": "volcano"},
    )
    assert set(keys(store.search(("test",), query="volcano")[:2])) == {"doc1", "doc2"}
    assert store.search(("test",), query="harbour")[0].key == "doc2"
    assert store.search(("test",), query="glacier")[0].key == "doc1"
    # key2 is not indexed: its words are in the value, not in the searched text
    item = store.get(("test",), "doc1")
    assert item is not None and item.value["key2"] == "violin"
    texts = {f.subject: f.text for f in client.timeline(partition='["test"]').items}
    assert "violin" not in texts["doc1"] and "desert" not in texts["doc2"]

    per_op = FactgraphStore(client, index={"fields": ["key17"]})
    per_op.put(
        ("ops",),
        "doc3",
        {"key0": "lighthouse", "key1": "bread", "key2": "canyon"},
        index=["key0", "key1"],
    )
    per_op.put(
        ("ops",),
        "doc4",
        {"key0": "tulip", "key1": "bread", "key3": "saxophone"},
        index=["key1", "key3"],
    )
    assert per_op.search(("ops",), query="lighthouse")[0].key == "doc3"
    assert per_op.search(("ops",), query="saxophone")[0].key == "doc4"
    texts = {f.subject: f.text for f in client.timeline(partition='["ops"]').items}
    assert "canyon" not in texts["doc3"] and "tulip" not in texts["doc4"]
    per_op.put(("ops",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
    assert sorted(keys(per_op.search(("ops",)))) == ["doc3", "doc4", "doc5"]


def test_non_ascii(store: FactgraphStore) -> None:
    """test_non_ascii"""
    texts = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
    for i, text in enumerate(texts, start=1):
        store.put(("user_123", "memories"), str(i), {"text": text})
    for i, text in enumerate(texts, start=1):
        assert store.search(("user_123", "memories"), query=text)[0].key == str(i)
    store.put(("ユーザー", "メモ"), "鍵", {"text": "値"})
    assert store.get(("ユーザー", "メモ"), "鍵") is not None
    assert ("ユーザー", "メモ") in store.list_namespaces()


def test_namespace_prefixes_stop_at_label_boundaries(store: FactgraphStore) -> None:
    """test_search_namespace_segment_boundary, test_search_empty_prefix_is_unconstrained,
    test_list_namespaces_segment_boundary"""
    for namespace in [
        ("foo",),
        ("foo", "child"),
        ("foo", "child", "deep"),
        ("foobar",),
        ("foobar", "baz"),
        ("foo2",),
    ]:
        store.put(namespace, "k", {"v": 1})

    def spaces(prefix: tuple[str, ...]) -> set[tuple[str, ...]]:
        return {item.namespace for item in store.search(prefix, limit=100)}

    assert spaces(("foo",)) == {("foo",), ("foo", "child"), ("foo", "child", "deep")}
    assert spaces(("foobar",)) == {("foobar",), ("foobar", "baz")}
    assert spaces(("foo2",)) == {("foo2",)}
    assert spaces(("fo",)) == set()
    assert len(spaces(())) == 6
    assert set(store.list_namespaces(prefix=("foo",), limit=100)) == {
        ("foo",),
        ("foo", "child"),
        ("foo", "child", "deep"),
    }
    for namespace in [
        ("uid", "users", "alice"),
        ("uid", "users", "malice"),
        ("uid", "a", "b", "alice"),
    ]:
        store.put(namespace, "k", {"v": 1})
    assert set(store.list_namespaces(suffix=("alice",), limit=100)) == {
        ("uid", "users", "alice"),
        ("uid", "a", "b", "alice"),
    }
    assert store.list_namespaces(prefix=("uid", "*", "alice"), limit=100) == [
        ("uid", "users", "alice")
    ]
    assert len(store.list_namespaces(prefix=("uid",), limit=100)) == 3


def test_namespace_labels_are_literal_and_case_sensitive(store: FactgraphStore) -> None:
    """test_search_namespace_wildcard_chars_are_literal, test_search_namespace_is_case_sensitive,
    test_namespace_labels_with_trailing_newline, test_list_namespaces_metacharacter_labels"""
    pairs = [
        ("star*", "starX"),
        ("q?m", "qXm"),
        ("br[ack]et", "brXacXket"),
        ("user_1", "userX1"),
        ("a%b", "axxb"),
        ("plus+", "plusX"),
        ('quo"te', "quoXte"),
        ("back\\slash", "backXslash"),
    ]
    for label, decoy in pairs:
        store.put((label,), "k", {"v": 1})
        store.put((decoy,), "k", {"v": 1})
        store.put((label, "child"), "k", {"v": 1})
    for label, _decoy in pairs:
        assert set(store.list_namespaces(prefix=(label,), limit=100)) == {
            (label,),
            (label, "child"),
        }
        assert {i.namespace for i in store.search((label,), limit=100)} == {
            (label,),
            (label, "child"),
        }
        assert store.list_namespaces(prefix=(label, "child"), limit=100) == [(label, "child")]
    store.put(("Foo",), "k", {"v": "upper"})
    store.put(("foo",), "k", {"v": "lower"})
    assert [i.value for i in store.search(("foo",))] == [{"v": "lower"}]
    assert [i.value for i in store.search(("Foo",))] == [{"v": "upper"}]
    store.put(("users", "alice"), "k", {"v": 1})
    store.put(("users", "alice\n"), "k", {"v": 2})
    store.put(("users", " alice "), "k", {"v": 3})
    assert store.list_namespaces(suffix=("alice",), limit=100) == [("users", "alice")]
    assert store.list_namespaces(prefix=("users", "alice"), limit=100) == [("users", "alice")]
    assert store.get(("users", "alice\n"), "k") is not None
    assert store.get(("users", "alice\n"), "k").value == {"v": 2}  # type: ignore[union-attr]
    assert store.get(("users", " alice "), "k").value == {"v": 3}  # type: ignore[union-attr]


@every_line
def test_invalid_namespaces_are_refused(store: FactgraphStore) -> None:
    for bad in [(), ("a.b",), ("",), ("langgraph", "x")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(namespace=("a.b",), key="k")])


@every_line
def test_ttl_sets_expires_at_and_reads_refresh_it(store: FactgraphStore, client: Client) -> None:
    assert store.supports_ttl
    store.put(("ttl",), "k", {"v": 1}, ttl=60)
    store.put(("ttl",), "forever", {"v": 2})
    facts = {f.subject: f for f in client.timeline(partition='["ttl"]').items}
    assert facts["forever"].expires_at is None
    first = facts["k"].expires_at
    assert first is not None
    assert timedelta(minutes=59) < first - datetime.now(UTC) <= timedelta(minutes=60)
    assert store.get(("ttl",), "k", refresh_ttl=False) is not None
    assert client.get(facts["k"].id).expires_at == first  # type: ignore[union-attr]
    assert store.get(("ttl",), "k") is not None  # refresh on read (the default)
    refreshed = client.get(facts["k"].id)
    assert refreshed is not None and refreshed.expires_at is not None
    assert refreshed.expires_at > first
    assert client.get(facts["forever"].id).expires_at is None  # type: ignore[union-attr]
    store.put(("ttl",), "gone", {"v": 3}, ttl=-1)  # already expired: invisible at once
    assert store.get(("ttl",), "gone") is None
    assert "gone" not in keys(store.search(("ttl",)))


@every_line
def test_the_ttl_config_gives_defaults_and_expired_items_never_show(client: Client) -> None:
    """TTLConfig: `default_ttl` for puts that name none, `refresh_on_read`; and what
    langgraph-checkpoint 4 calls `omit_expired` always holds, whatever it is set to: an expired
    item leaves every read at once (there is no sweeper to wait for)."""
    store = FactgraphStore(
        client, ttl={"default_ttl": 30, "refresh_on_read": False, "omit_expired": False}
    )
    store.put(("cfg",), "k", {"v": 1})
    fact = client.timeline(partition='["cfg"]').items[0]
    assert fact.expires_at is not None
    assert timedelta(minutes=29) < fact.expires_at - datetime.now(UTC) <= timedelta(minutes=30)
    assert store.get(("cfg",), "k") is not None
    assert client.get(fact.id).expires_at == fact.expires_at  # type: ignore[union-attr]
    assert store.get(("cfg",), "k", refresh_ttl=True) is not None
    assert client.get(fact.id).expires_at > fact.expires_at  # type: ignore[union-attr,operator]
    store.put(("cfg",), "gone", {"v": 2}, ttl=-1)
    assert store.get(("cfg",), "gone") is None
    assert keys(store.search(("cfg",))) == ["k"]


@every_line
def test_a_value_may_be_any_mapping(store: FactgraphStore) -> None:
    """langgraph-checkpoint 4 types a put's value as a Mapping (3 said dict): a read-only
    mapping is stored, searched and read back as the dict it holds."""
    store.put(("maps",), "k", MappingProxyType({"text": "a read-only heron", "n": 1}))
    item = store.get(("maps",), "k")
    assert item is not None and item.value == {"text": "a read-only heron", "n": 1}
    assert keys(store.search(("maps",), query="heron")) == ["k"]


@every_line
def test_the_async_store_does_the_same(server_url: str, scope: str) -> None:
    """test_abatch_order, test_no_running_loop, test_large_batches_async (scaled down)"""

    async def run() -> None:
        async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
            store = AsyncFactgraphStore(fg)
            with pytest.raises(asyncio.InvalidStateError):
                store.put(("foo", "bar"), "baz", {"val": "baz"})
            with pytest.raises(asyncio.InvalidStateError):
                store.get(("foo", "bar"), "baz")
            await store.aput(("test", "foo"), "key1", {"data": "value1"})
            await store.aput(("test", "bar"), "key2", {"data": "value2"})
            results = await store.abatch(
                [
                    GetOp(namespace=("test", "foo"), key="key1"),
                    PutOp(namespace=("test", "bar"), key="key2", value={"data": "value2"}),
                    SearchOp(
                        namespace_prefix=("test",), filter={"data": "value1"}, limit=10, offset=0
                    ),
                    ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
                    GetOp(namespace=("test",), key="key3"),
                ]
            )
            assert isinstance(results[0], Item) and results[0].value == {"data": "value1"}
            assert results[1] is None
            assert isinstance(results[2], list) and keys(results[2]) == ["key1"]
            assert results[3] == [("test", "bar"), ("test", "foo")]
            assert results[4] is None
            assert keys(await store.asearch(("test",), query="value2"))[0] == "key2"
            assert await store.alist_namespaces(prefix=("test",), max_depth=1) == [("test",)]

            coros: list[Any] = []
            for m in range(2):
                for i in range(6):
                    namespace = ("many", str(m % 2))
                    coros += [
                        store.aput(namespace, f"key{i}", {"foo": f"bar{i}"}),
                        store.aget(namespace, f"key{i}"),
                        store.alist_namespaces(prefix=None, max_depth=m + 1),
                        store.asearch(("many",)),
                        store.aput(namespace, f"key{i}", {"foo": f"bar{i}"}),
                        store.adelete(namespace, f"key{i}"),
                    ]
            done = await asyncio.gather(*coros)
            assert len(done) == 2 * 6 * 6
            await store.adelete(("test", "foo"), "key1")
            assert await store.aget(("test", "foo"), "key1") is None

    asyncio.run(run())


def test_concurrent_puts_of_one_key_leave_one_live_value(client: Client) -> None:
    store = FactgraphStore(client)

    async def run() -> None:
        async with AsyncClient(str(client.http.base_url), scope=client.scope, timeout=300) as fg:
            astore = AsyncFactgraphStore(fg)
            await asyncio.gather(*(astore.aput(("race",), "k", {"n": n}) for n in range(6)))

    asyncio.run(run())
    store.put(("race",), "k", {"n": "final"})
    assert store.get(("race",), "k").value == {"n": "final"}  # type: ignore[union-attr]
    assert [f.subject for f in client.timeline(partition='["race"]').items] == ["k"]


@every_line
def test_each_store_also_serves_the_other_calling_convention(
    store: FactgraphStore, server_url: str, scope: str
) -> None:
    """A graph run with `ainvoke` calls a blocking store's async methods, and a sync node of
    such a run calls an async store's blocking methods from a worker thread."""

    async def blocking_store_awaited() -> None:
        await store.aput(("conv",), "k", {"v": "awaited"})
        item = await store.aget(("conv",), "k")
        assert item is not None and item.value == {"v": "awaited"}

    asyncio.run(blocking_store_awaited())

    async def async_store_from_a_thread() -> None:
        async with AsyncClient(server_url, scope=scope, timeout=300) as fg:
            astore = AsyncFactgraphStore(fg)
            await astore.aput(("conv",), "k2", {"v": "threaded"})
            item = await asyncio.to_thread(astore.get, ("conv",), "k2")
            assert item is not None and item.value == {"v": "threaded"}
            with pytest.raises(asyncio.InvalidStateError):
                astore.get(("conv",), "k2")  # on the loop's own thread: refused

    asyncio.run(async_store_from_a_thread())


def test_each_indexed_field_is_a_vector_of_its_own(client: Client) -> None:
    """As in LangGraph's stores, an item scores by its best field: a long field about something
    else does not dilute the field that answers the query (joined into one vector, it did)."""
    store = FactgraphStore(client, index={"fields": ["title", "body"]})
    other = (
        "Minutes of the facilities meeting: the car park gets new lines, the third floor "
        "printer is replaced, and the kitchen rota changes in March."
    )
    store.put(("docs",), "alone", {"title": "Baking sourdough bread at home"})
    store.put(("docs",), "beside", {"title": "Baking sourdough bread at home", "body": other})
    store.put(("docs",), "neither", {"title": "Quarterly tax filing", "body": other})
    found = store.search(("docs",), query="making loaves from natural leaven")
    scores = {item.key: item.score or 0.0 for item in found}
    # No word of the query is in any item, so the scores are the vectors' alone: "beside"
    # scored 0.19 against 0.28 when its fields were one vector, 0.30 now.
    assert keys(found)[2] == "neither"
    assert abs(scores["alone"] - scores["beside"]) < 0.05, scores
    texts = {f.subject: f.text for f in client.timeline(partition='["docs"]').items}
    assert texts["beside"].startswith("Baking sourdough bread at home\x1eMinutes")


def test_a_short_field_scores_the_same_first_or_second(client: Client) -> None:
    """The digest that makes an item's text unique is in no field's vector: "bbb" scored 0.729
    as the first of two fields and 0.276 as the second, after "aaa" (issue 65)."""
    store = FactgraphStore(client, index={"fields": ["first", "second"]})
    store.put(("pos",), "bbb-first", {"first": "bbb", "second": "aaa"})
    store.put(("pos",), "bbb-second", {"first": "aaa", "second": "bbb"})
    scores = {item.key: item.score or 0.0 for item in store.search(("pos",), query="bbb")}
    assert abs(scores["bbb-first"] - scores["bbb-second"]) < 0.02, scores
