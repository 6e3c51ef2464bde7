"""Browsing through GraphQL: the same operations, their null / empty cases and errors."""

from __future__ import annotations

from graph.memory import Memory
from tests.browse_helpers import add
from tests.conftest import GraphQLClient

LEXICAL = """
query($scope: String!, $q: String!, $exclude: [ID!]) {
  lexicalSearch(scope: $scope, query: $q, excludeIds: $exclude) { id type preview time }
}"""

TIMELINE = """
query($scope: String!, $first: Int!, $after: String, $exclude: [ID!]) {
  timeline(scope: $scope, first: $first, after: $after, excludeIds: $exclude) {
    edges { cursor node { id text } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}"""

NODE = """
query($scope: String!, $id: ID!, $neighbours: Boolean!) {
  node(scope: $scope, id: $id, neighbours: $neighbours) {
    id type fact { id text } entity { id name aliases }
    neighbours { id edgeType relation via }
  }
}"""

CONTEXT = """
query($scope: String!, $id: String!) {
  conversationContext(scope: $scope, id: $id) { id recallSelectedIds alwaysInjectIds excludeIds }
}"""

PIN = """
mutation($scope: String!, $ctx: String!, $ids: [ID!]!) {
  pin(scope: $scope, contextId: $ctx, factIds: $ids) { alwaysInjectIds }
}"""

UNPIN = """
mutation($scope: String!, $ctx: String!, $ids: [ID!]!) {
  unpin(scope: $scope, contextId: $ctx, factIds: $ids) { alwaysInjectIds }
}"""


def test_lexical_search_with_exclusions(gql: GraphQLClient, memory: Memory, scope: str) -> None:
    first = add(memory, scope, "Parcel HX-9 shipped", day=1)
    second = add(memory, scope, "Parcel HX-9 delivered", day=2)
    hits = gql.data(LEXICAL, scope=scope, q="hx-9")["lexicalSearch"]
    assert [(h["id"], h["type"]) for h in hits] == [(second, "FACT"), (first, "FACT")]
    assert hits[0]["preview"] == "Parcel HX-9 delivered"
    hits = gql.data(LEXICAL, scope=scope, q="hx-9", exclude=[second])["lexicalSearch"]
    assert [h["id"] for h in hits] == [first]
    assert gql.data(LEXICAL, scope=scope, q="")["lexicalSearch"] == []


def test_timeline_connection_pages_with_cursors(
    gql: GraphQLClient, memory: Memory, scope: str
) -> None:
    ids = [add(memory, scope, f"log line {i}", day=i) for i in range(5)]
    page = gql.data(TIMELINE, scope=scope, first=3)["timeline"]
    assert [e["node"]["id"] for e in page["edges"]] == ids[::-1][:3]
    info = page["pageInfo"]
    assert info["hasNextPage"] and not info["hasPreviousPage"]
    assert info["endCursor"] == page["edges"][-1]["cursor"]
    rest = gql.data(TIMELINE, scope=scope, first=3, after=info["endCursor"])["timeline"]
    assert [e["node"]["id"] for e in rest["edges"]] == ids[::-1][3:]
    assert not rest["pageInfo"]["hasNextPage"] and rest["pageInfo"]["hasPreviousPage"]


def test_timeline_errors_name_the_argument(gql: GraphQLClient, scope: str) -> None:
    body = gql(TIMELINE, scope=scope, first=3, after="not-a-cursor")
    (error,) = body["errors"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT", "field": "after"}
    body = gql(TIMELINE, scope=scope, first=1000)
    assert body["errors"][0]["extensions"]["field"] == "first"


def test_node_with_and_without_neighbours(gql: GraphQLClient, memory: Memory, scope: str) -> None:
    fact = add(memory, scope, "Ivo teaches piano", subject="Ivo")
    node = gql.data(NODE, scope=scope, id=fact, neighbours=True)["node"]
    assert node["type"] == "FACT" and node["fact"]["text"] == "Ivo teaches piano"
    assert node["neighbours"] == [
        {"id": "entity:ivo", "edgeType": "MENTIONS", "relation": "subject", "via": None}
    ]
    bare = gql.data(NODE, scope=scope, id=fact, neighbours=False)["node"]
    assert bare["neighbours"] == []
    entity = gql.data(NODE, scope=scope, id="entity:ivo", neighbours=True)["node"]
    assert entity["type"] == "ENTITY" and entity["entity"]["name"] == "Ivo"
    assert entity["fact"] is None
    assert [n["id"] for n in entity["neighbours"]] == [fact]
    assert gql.data(NODE, scope=scope, id="nope", neighbours=True)["node"] is None


def test_context_pin_unpin_and_exclusion(gql: GraphQLClient, memory: Memory, scope: str) -> None:
    kept = add(memory, scope, "Jon's locker code is 4411", day=1)
    pinned = add(memory, scope, "Jon's desk is by the window", day=2)
    empty = gql.data(CONTEXT, scope=scope, id="chat-9")["conversationContext"]
    assert empty == {
        "id": "chat-9",
        "recallSelectedIds": [],
        "alwaysInjectIds": [],
        "excludeIds": [],
    }
    assert gql.data(PIN, scope=scope, ctx="chat-9", ids=[pinned])["pin"] == {
        "alwaysInjectIds": [pinned]
    }
    held = gql.data(CONTEXT, scope=scope, id="chat-9")["conversationContext"]["excludeIds"]
    hits = gql.data(LEXICAL, scope=scope, q="jon", exclude=held)["lexicalSearch"]
    assert [h["id"] for h in hits] == [kept]
    page = gql.data(TIMELINE, scope=scope, first=10, exclude=held)["timeline"]
    assert [e["node"]["id"] for e in page["edges"]] == [kept]
    assert gql.data(UNPIN, scope=scope, ctx="chat-9", ids=[pinned])["unpin"] == {
        "alwaysInjectIds": []
    }


def test_pinning_an_unknown_fact_is_a_clear_error(gql: GraphQLClient, scope: str) -> None:
    body = gql(PIN, scope=scope, ctx="chat-9", ids=["no-such-fact"])
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    assert "no-such-fact" in body["errors"][0]["message"]
