"""What a frontend asks besides facts: its key's powers, and why a fact waits for review."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from graph.auth.apikeys import KeyStore
from graph.memory import Memory
from resolvers.app import create_app
from tests.conftest import GraphQLClient
from tests.live_server import serve

ACCESS = """
query($scope: String) {
  access(scope: $scope) {
    authRequired keyId role scopes scope canRead canWrite canReview
  }
}"""
QUEUE = """
query($scope: String!, $after: String) {
  reviewQueue(scope: $scope, first: 1, after: $after) {
    items { id }
    held { fact { id text } reason heldAt }
    nextCursor
  }
}"""


def test_without_keys_the_caller_may_do_everything(gql: GraphQLClient, scope: str) -> None:
    access = gql.data(ACCESS, scope=scope)["access"]

    assert access == {
        "authRequired": False,
        "keyId": None,
        "role": "ADMIN",
        "scopes": ["*"],
        "scope": scope,
        "canRead": True,
        "canWrite": True,
        "canReview": True,
    }


@pytest.fixture(scope="module")
def secured(memory: Memory) -> Iterator[str]:
    with serve(create_app(memory=memory, require_auth=True)) as url:
        yield url


@pytest.fixture
def keys(memory: Memory) -> Iterator[KeyStore]:
    store = KeyStore(memory.db)
    before = {k.id for k in store.list()}
    yield store
    for key in store.list():
        if key.id not in before:
            store.delete(key.id)


def ask(url: str, token: str, scope: str | None) -> dict[str, Any]:
    response = httpx.post(
        url + "/graphql",
        json={"query": ACCESS, "variables": {"scope": scope}},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert response.status_code == 200, response.text
    access: dict[str, Any] = response.json()["data"]["access"]
    return access


def test_a_key_learns_its_role_and_what_it_may_do_on_a_scope(
    secured: str, keys: KeyStore, scope: str, other_scope: str
) -> None:
    url = secured
    reader, reader_token = keys.create([scope], "reader")
    _, writer = keys.create([scope], "writer")
    _, admin = keys.create([scope], "admin")

    as_reader = ask(url, reader_token, scope)
    elsewhere = ask(url, admin, other_scope)

    assert as_reader["authRequired"] is True
    assert as_reader["keyId"] == reader.id
    assert (as_reader["role"], as_reader["scopes"]) == ("READER", [scope])
    assert (as_reader["canRead"], as_reader["canWrite"], as_reader["canReview"]) == (
        True,
        False,
        False,
    )
    assert ask(url, writer, scope)["canWrite"] is True
    assert ask(url, writer, scope)["canReview"] is False
    assert ask(url, admin, scope)["canReview"] is True
    assert (elsewhere["canRead"], elsewhere["canWrite"], elsewhere["canReview"]) == (
        False,
        False,
        False,
    ), "a scope outside the key: nothing, whatever the role"


def test_the_review_queue_says_why_each_fact_was_held(
    gql: GraphQLClient, memory: Memory, scope: str
) -> None:
    first = memory.remember(scope, {"text": "Eve owns the company", "source": "web"})
    second = memory.remember(scope, {"text": "Eve sold the company", "trusted": False})

    page = gql.data(QUEUE, scope=scope)["reviewQueue"]
    following = gql.data(QUEUE, scope=scope, after=page["nextCursor"])["reviewQueue"]

    assert [h["fact"]["id"] for h in page["held"]] == [first.id]
    assert page["items"] == [{"id": first.id}]
    assert page["held"][0]["reason"] == "source 'web' is configured as untrusted"
    assert page["held"][0]["heldAt"]
    assert following["held"][0]["fact"]["id"] == second.id
    assert following["held"][0]["reason"] == "the caller marked the input untrusted"
    assert following["nextCursor"] is None
