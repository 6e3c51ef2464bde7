"""Access control: API keys bound to scopes and a role, enforced on GraphQL and REST.

These tests run their own server with keys required (the suite's shared server is loopback
with auth off, as `factgraph serve` is by default).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from factgraph.cli import main
from graph.auth.apikeys import KeyStore
from graph.auth.roles import ApiKey, Role, auth_required
from graph.memory import Memory
from resolvers.app import create_app
from tests.live_server import serve

REMEMBER = """
mutation($scope: String!, $text: String!) {
  remember(scope: $scope, fact: {text: $text}) { kind fact { id text } }
}"""
GET = "query($scope: String!, $id: ID!) { fact(scope: $scope, id: $id) { id text } }"
PURGE = 'mutation($scope: String!, $id: ID!) { purge(scope: $scope, id: $id, reason: "gdpr") }'


@pytest.fixture(scope="module")
def secured(memory: Memory) -> Iterator[tuple[Starlette, str]]:
    app = create_app(memory=memory, require_auth=True)
    with serve(app) as url:
        yield app, url


class Keys:
    """The server's own key store (so revocation is seen at once); keys die with the test."""

    def __init__(self, store: KeyStore) -> None:
        self.store = store
        self.made: list[ApiKey] = []

    def create(self, scopes: list[str], role: str) -> tuple[ApiKey, str]:
        key, token = self.store.create(scopes, role)
        self.made.append(key)
        return key, token

    def revoke(self, key_id: str) -> None:
        self.store.revoke(key_id)


@pytest.fixture
def keys(secured: tuple[Starlette, str]) -> Iterator[Keys]:
    made = Keys(secured[0].state.gate.keys)
    yield made
    for key in made.made:
        made.store.delete(key.id)


@pytest.fixture
def client(secured: tuple[Starlette, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=secured[1], timeout=30) as c:
        yield c


def post(client: httpx.Client, query: str, token: str | None = None, **variables: object) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)


def test_no_key_is_401_on_graphql_and_rest(client: httpx.Client, scope: str) -> None:
    response = post(client, GET, scope=scope, id="x")
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "UNAUTHENTICATED"
    assert "API key is required" in error["message"]
    rest = client.post("/api/v1/search", json={"query": "x"}, headers={"X-Scope": scope})
    assert rest.status_code == 401
    assert rest.json()["error"]["code"] == "UNAUTHENTICATED"


def test_unknown_malformed_and_revoked_keys_are_401(
    client: httpx.Client, keys: Keys, scope: str
) -> None:
    key, token = keys.create([scope], "reader")
    assert post(client, GET, token, scope=scope, id="x").status_code == 200
    forged = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    assert post(client, GET, forged, scope=scope, id="x").status_code == 401
    assert post(client, GET, "not-a-key", scope=scope, id="x").status_code == 401
    keys.revoke(key.id)
    response = post(client, GET, token, scope=scope, id="x")
    assert response.status_code == 401
    assert "revoked" in response.json()["errors"][0]["message"]


def test_a_key_outside_its_scope_gets_a_403_that_reveals_nothing(
    client: httpx.Client, keys: Keys, memory: Memory, scope: str, other_scope: str
) -> None:
    secret = memory.remember(other_scope, {"text": "Dana's door code is 4417"})
    _, token = keys.create([scope], "admin")
    answers = [
        post(client, GET, token, scope=other_scope, id=secret.id),  # exists, full
        post(client, GET, token, scope=other_scope, id="no-such-id"),  # exists, wrong id
        post(client, GET, token, scope=f"{other_scope}-empty", id=secret.id),  # no such scope
    ]
    assert {a.status_code for a in answers} == {403}
    bodies = {a.text for a in answers}
    assert len(bodies) == 1, "the answer must not depend on what the other scope holds"
    body = bodies.pop()
    assert other_scope not in body and secret.id not in body and "4417" not in body
    assert "may not use the requested scope" in body
    rest = client.post(
        "/api/v1/search",
        json={"query": "door code"},
        headers={"X-Scope": other_scope, "Authorization": f"Bearer {token}"},
    )
    assert rest.status_code == 403
    assert "4417" not in rest.text and other_scope not in rest.text


def test_roles_reader_writer_admin(client: httpx.Client, keys: Keys, scope: str) -> None:
    _, reader = keys.create([scope], "reader")
    _, writer = keys.create([scope], "writer")
    _, admin = keys.create([scope], "admin")

    refused = post(client, REMEMBER, reader, scope=scope, text="Ann likes tea")
    assert refused.status_code == 403
    assert "role reader; the operation needs writer" in refused.text

    written = post(client, REMEMBER, writer, scope=scope, text="Ann likes tea")
    assert written.status_code == 200, written.text
    fact_id = written.json()["data"]["remember"]["fact"]["id"]
    read = post(client, GET, reader, scope=scope, id=fact_id)
    assert read.json()["data"]["fact"]["text"] == "Ann likes tea"

    assert post(client, PURGE, writer, scope=scope, id=fact_id).status_code == 403
    purged = post(client, PURGE, admin, scope=scope, id=fact_id)
    assert purged.status_code == 200 and purged.json()["data"]["purge"] is True


def test_the_audit_trail_names_the_key(
    client: httpx.Client, keys: Keys, memory: Memory, scope: str
) -> None:
    key, token = keys.create([scope], "writer")
    written = post(client, REMEMBER, token, scope=scope, text="Bo moved to Oslo")
    fact_id = written.json()["data"]["remember"]["fact"]["id"]
    assert {e.actor for e in memory.audit_trail(scope, fact_id)} == {key.id}


def test_a_wildcard_key_reaches_every_scope_and_x_api_key_works(
    client: httpx.Client, keys: Keys, scope: str, other_scope: str
) -> None:
    _, token = keys.create(["*"], "reader")
    for name in (scope, other_scope):
        response = client.post(
            "/graphql",
            json={"query": GET, "variables": {"scope": name, "id": "x"}},
            headers={"X-API-Key": token},
        )
        assert response.status_code == 200 and response.json()["data"]["fact"] is None


def test_a_prefix_key_reaches_the_scopes_under_its_prefix_only(
    client: httpx.Client, keys: Keys, scope: str
) -> None:
    """`acme/*` grants `acme/alice` and `acme/user:bob` (mem0's users of project acme), not
    `acme` itself nor `acmex/alice`; a call naming no scope gets none of them by default."""
    _, token = keys.create([f"{scope}/*"], "reader")

    def status(name: str) -> int:
        code: int = post(client, GET, token, scope=name, id="x").status_code
        return code

    assert status(f"{scope}/alice") == 200 and status(f"{scope}/user:bob") == 200
    assert status(scope) == 403 and status(f"{scope}x/alice") == 403
    unnamed = client.post(
        "/api/v1/search", json={"query": "x"}, headers={"Authorization": f"Bearer {token}"}
    )
    assert unnamed.status_code == 403


def test_health_and_metrics_stay_open_and_the_graphiql_page_needs_no_key(
    client: httpx.Client,
) -> None:
    assert client.get("/healthz").status_code == 200
    assert client.get("/metrics").status_code == 200
    assert client.get("/graphql", headers={"Accept": "text/html"}).status_code == 200


def test_keys_are_stored_hashed(keys: Keys, memory: Memory, scope: str) -> None:
    key, token = keys.create([scope], "reader")
    records = memory.db.read("apikey_get", {"id": key.id})
    stored = records[0]["key"]
    secret = token.split("_", 2)[2]
    assert secret not in str(stored) and stored["hash"] != secret and len(stored["hash"]) == 64


def test_auth_mode_follows_the_bind_address() -> None:
    assert auth_required("auto", "127.0.0.1") is False
    assert auth_required("auto", "localhost") is False
    assert auth_required("auto", "::1") is False
    assert auth_required("auto", "0.0.0.0") is True
    assert auth_required("required", "127.0.0.1") is True
    assert auth_required("off", "127.0.0.1") is False
    with pytest.raises(ValueError, match="only allowed for a server bound to localhost"):
        auth_required("off", "0.0.0.0")


def test_serve_refuses_auth_off_on_a_public_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FACTGRAPH_AUTH", "off")
    assert main(["serve", "--host", "0.0.0.0", "--port", "1"]) == 2
    assert "only allowed for a server bound to localhost" in capsys.readouterr().err


async def _post_from(app: Starlette, client: tuple[str, int], body: object) -> httpx.Response:
    transport = httpx.ASGITransport(app=app, client=client)
    async with httpx.AsyncClient(transport=transport, base_url="http://factgraph") as http:
        return await http.post("/graphql", json=body)


def test_with_auth_off_only_loopback_callers_are_served(memory: Memory, scope: str) -> None:
    app = create_app(memory=memory, require_auth=False)
    body = {"query": GET, "variables": {"scope": scope, "id": "x"}}
    assert asyncio.run(_post_from(app, ("127.0.0.1", 5000), body)).status_code == 200
    refused = asyncio.run(_post_from(app, ("203.0.113.9", 5000), body))
    assert refused.status_code == 401
    assert "only answers localhost" in refused.text


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_the_server_announces_its_auth_mode_at_start(memory: Memory) -> None:
    logger = logging.getLogger("factgraph")
    collect = _Collect()
    saved = (logger.level, logger.disabled)
    logger.addHandler(collect)
    logger.setLevel(logging.INFO)
    logger.disabled = False
    try:
        with serve(create_app(memory=memory)):
            pass
        with serve(create_app(memory=memory, require_auth=True)):
            pass
    finally:
        logger.removeHandler(collect)
        logger.setLevel(saved[0])
        logger.disabled = saved[1]
    assert any("authentication: OFF (bound to loopback" in m for m in collect.messages), (
        collect.messages
    )
    assert any("authentication: REQUIRED" in m for m in collect.messages)


def test_cli_creates_lists_and_revokes_keys(
    capsys: pytest.CaptureFixture[str], memory: Memory, scope: str
) -> None:
    assert main(["keys", "create", "--scope", scope, "--role", "writer", "--label", "t"]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    assert token.startswith("fgk_") and "shown only once" in err
    store = KeyStore(memory.db)
    key = store.authenticate(token)
    try:
        assert key.role is Role.WRITER and key.scopes == (scope,)
        assert main(["keys", "list"]) == 0
        listed = capsys.readouterr().out
        assert key.id in listed and token.split("_", 2)[2] not in listed
        assert main(["keys", "revoke", key.id]) == 0
        assert f"revoked {key.id}" in capsys.readouterr().out
        assert [k.revoked for k in store.list() if k.id == key.id] == [True]
        assert main(["keys", "revoke", "nope"]) == 1
    finally:
        store.delete(key.id)
