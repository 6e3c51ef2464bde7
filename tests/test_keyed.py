"""The key-value view of a scope (graph/browse/keyed.py, GraphQL factsByKey / partitionFacts /
partitions / refreshExpiry): what a key-value store such as the LangGraph store needs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph.memory import Memory
from tests.conftest import GraphQLClient

BY_KEY = """query($s: String!, $p: String!, $k: [String!]!) {
  factsByKey(scope: $s, partition: $p, keys: $k) { id subject text } }"""
LISTING = """query($s: String!, $p: String, $f: Int!, $o: Int!) {
  partitionFacts(scope: $s, prefix: $p, first: $f, offset: $o) { subject partition } }"""
PARTITIONS = "query($s: String!, $p: String) { partitions(scope: $s, prefix: $p) }"
REFRESH = """mutation($s: String!, $ids: [ID!]!, $m: [Float!]!) {
  refreshExpiry(scope: $s, ids: $ids, minutes: $m) }"""


def put(memory: Memory, scope: str, partition: str, key: str, text: str, **extra: object) -> str:
    fact = {"text": text, "subject": key, "partition": partition, **extra}
    return memory.remember(scope, fact, pipeline=False).id


def test_facts_by_key_answers_the_live_facts_of_a_partition(
    memory: Memory, gql: GraphQLClient, scope: str
) -> None:
    a = put(memory, scope, "p1", "a", "alpha value")
    put(memory, scope, "p2", "a", "alpha elsewhere")
    b = put(memory, scope, "p1", "b", "beta value")
    memory.forget(scope, b)
    found = gql.data(BY_KEY, s=scope, p="p1", k=["a", "b", "c"])["factsByKey"]
    assert [(f["id"], f["subject"]) for f in found] == [(a, "a")]
    assert gql.data(BY_KEY, s=scope, p="p1", k=[])["factsByKey"] == []


def test_partition_facts_and_partitions_match_a_plain_prefix(
    memory: Memory, gql: GraphQLClient, scope: str
) -> None:
    for partition, key in [('["a"]', "1"), ('["a","b"]', "2"), ('["ab"]', "3"), ("other", "4")]:
        put(memory, scope, partition, key, f"item {key} of {partition}")
    listed = gql.data(LISTING, s=scope, p='["a"', f=10, o=0)["partitionFacts"]
    assert [f["subject"] for f in listed] == ["2", "1"]  # newest first, not ["ab"]
    assert [
        f["subject"] for f in gql.data(LISTING, s=scope, p=None, f=2, o=1)["partitionFacts"]
    ] == [
        "3",
        "2",
    ]
    assert gql.data(PARTITIONS, s=scope, p='["a"')["partitions"] == ['["a","b"]', '["a"]']
    assert gql.data(PARTITIONS, s=scope, p=None)["partitions"] == sorted(
        ['["a"]', '["a","b"]', '["ab"]', "other"]
    )
    bad = gql(LISTING, s=scope, p=None, f=0, o=0)
    assert bad["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "field": "first"}


def test_refresh_expiry_moves_a_ttl_and_expired_facts_are_not_seen(
    memory: Memory, gql: GraphQLClient, scope: str
) -> None:
    soon = datetime.now(UTC) + timedelta(minutes=5)
    ttl = put(memory, scope, "t", "ttl", "expiring", expires_at=soon)
    plain = put(memory, scope, "t", "plain", "lasting")
    moved = gql.data(REFRESH, s=scope, ids=[ttl, plain], m=[120.0, 120.0])
    assert moved["refreshExpiry"] == 1  # a fact without a TTL gets none
    stored = memory.get(scope, ttl)
    assert stored is not None and stored.expires_at is not None
    assert stored.expires_at - datetime.now(UTC) > timedelta(minutes=119)
    assert memory.get(scope, plain).expires_at is None  # type: ignore[union-attr]
    put(memory, scope, "t", "gone", "expired", expires_at=datetime.now(UTC) - timedelta(1))
    assert {
        f["subject"] for f in gql.data(BY_KEY, s=scope, p="t", k=["gone", "ttl"])["factsByKey"]
    } == {"ttl"}
    assert {
        f["subject"] for f in gql.data(LISTING, s=scope, p="t", f=10, o=0)["partitionFacts"]
    } == {
        "ttl",
        "plain",
    }
    mismatched = gql(REFRESH, s=scope, ids=[ttl], m=[])
    assert mismatched["errors"][0]["extensions"]["field"] == "minutes"
    for bad in [0.0, -5.0, 1e300]:
        refused = gql(REFRESH, s=scope, ids=[ttl], m=[bad])
        assert refused["errors"][0]["extensions"] == {"code": "BAD_USER_INPUT", "field": "minutes"}
