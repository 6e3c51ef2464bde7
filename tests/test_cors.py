"""A frontend on another origin calls factgraph from a browser: FACTGRAPH_CORS_ORIGINS.

Only the configured origins get CORS headers; every other origin is answered as if CORS were
off, so the browser blocks the page. Checked with httpx (the headers) and in headless
chromium (what a page can actually do), with the page served by a second server.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from graph.auth.apikeys import KeyStore
from graph.config import cors_origins
from graph.memory import Memory
from resolvers.app import create_app
from tests.browser import chromium_page
from tests.live_server import free_port, serve

FRONTEND = "http://localhost:3000"
FACTGRAPH_HEADERS = ("authorization", "content-type", "x-api-key", "x-scope", "x-neo4j-bookmark")
REMEMBER = """
mutation($scope: String!, $text: String!) {
  remember(scope: $scope, fact: {text: $text}) { kind fact { id text } }
}"""


def preflight(client: httpx.Client, path: str, origin: str, method: str = "POST") -> httpx.Response:
    return client.options(
        path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": ", ".join(FACTGRAPH_HEADERS),
        },
    )


def cors_headers(response: httpx.Response) -> dict[str, str]:
    return {k: v for k, v in response.headers.items() if k.startswith("access-control-")}


@pytest.fixture(scope="module")
def cors_app_url(memory: Memory) -> Iterator[str]:
    settings = memory.settings.with_overrides(cors_origins=(FRONTEND,))
    with serve(create_app(memory=memory, settings=settings)) as url:
        yield url


@pytest.fixture
def client(cors_app_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=cors_app_url, timeout=30) as c:
        yield c


@pytest.mark.parametrize(
    ("path", "method"),
    [("/graphql", "POST"), ("/api/v1/search", "POST"), ("/mcp", "POST"), ("/mcp", "DELETE")],
)
def test_a_preflight_from_an_allowed_origin_allows_the_headers_factgraph_reads(
    client: httpx.Client, path: str, method: str
) -> None:
    response = preflight(client, path, FRONTEND, method)

    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == FRONTEND
    assert method in response.headers["access-control-allow-methods"]
    listed = response.headers["access-control-allow-headers"].split(",")
    allowed = {h.strip().lower() for h in listed}
    assert set(FACTGRAPH_HEADERS) <= allowed


def test_an_answer_to_an_allowed_origin_exposes_the_bookmark_of_its_write(
    client: httpx.Client, scope: str
) -> None:
    response = client.post(
        "/graphql",
        json={"query": REMEMBER, "variables": {"scope": scope, "text": "Ada likes tea"}},
        headers={"Origin": FRONTEND},
    )

    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == FRONTEND
    exposed = response.headers["access-control-expose-headers"].lower()
    assert "x-neo4j-bookmark" in exposed and "x-request-id" in exposed
    assert response.headers["x-neo4j-bookmark"]


def test_a_disallowed_origin_gets_no_cors_header_at_all(client: httpx.Client) -> None:
    refused = preflight(client, "/graphql", "http://evil.example")
    answered = client.post(
        "/graphql", json={"query": "{ health { ok } }"}, headers={"Origin": "http://evil.example"}
    )

    assert refused.status_code == 405
    assert cors_headers(refused) == {}
    assert cors_headers(answered) == {}


def test_cors_is_off_unless_origins_are_configured(http: httpx.Client) -> None:
    response = preflight(http, "/graphql", FRONTEND)

    assert response.status_code == 405
    assert cors_headers(response) == {}


def test_with_keys_required_the_preflight_needs_no_key_and_a_401_is_readable(
    memory: Memory,
) -> None:
    settings = memory.settings.with_overrides(cors_origins=(FRONTEND,))
    app = create_app(memory=memory, settings=settings, require_auth=True)
    with serve(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        allowed = preflight(client, "/graphql", FRONTEND)
        refused = client.post(
            "/graphql", json={"query": "{ health { ok } }"}, headers={"Origin": FRONTEND}
        )

    assert allowed.status_code == 200
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == FRONTEND
    assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert "www-authenticate" in refused.headers["access-control-expose-headers"].lower()


def test_the_setting_takes_origins_and_refuses_what_a_browser_never_sends() -> None:
    assert cors_origins("") == ()
    assert cors_origins(" http://localhost:3000, https://Console.example.org ,") == (
        "http://localhost:3000",
        "https://console.example.org",
    )
    assert cors_origins("*") == ("*",)
    for bad in ("localhost:3000", "http://localhost:3000/", "http://x.org/console", "ftp://x"):
        with pytest.raises(ValueError, match="FACTGRAPH_CORS_ORIGINS"):
            cors_origins(bad)


# -- in a real browser -----------------------------------------------------------------------
async def _frontend_page(_: Request) -> Response:
    return HTMLResponse("<!doctype html><title>a frontend</title><p>frontend</p>")


FRONTEND_APP = Starlette(routes=[Route("/", _frontend_page)])


def _fetch_graphql(service: str, body: dict[str, Any], scope: str) -> str:
    """JavaScript a frontend would run: POST JSON with the X-Scope header (a preflight)."""
    return f"""
    (async () => {{
      try {{
        const r = await fetch({json.dumps(service + "/graphql")}, {{
          method: "POST",
          headers: {{"Content-Type": "application/json", "X-Scope": {json.dumps(scope)}}},
          body: JSON.stringify({json.dumps(body)}),
        }});
        return {{status: r.status, body: await r.json(),
                 bookmark: r.headers.get("X-Neo4j-Bookmark")}};
      }} catch (e) {{
        return {{blocked: String(e)}};
      }}
    }})()
    """


def test_a_page_on_an_allowed_origin_calls_graphql_and_another_origin_is_blocked(
    memory: Memory, scope: str
) -> None:
    allowed_port, other_port = free_port(), free_port()
    allowed = f"http://127.0.0.1:{allowed_port}"
    settings = memory.settings.with_overrides(cors_origins=(allowed,))
    remember = {"query": REMEMBER, "variables": {"scope": scope, "text": "Grace writes COBOL"}}
    with (
        chromium_page() as page,
        serve(create_app(memory=memory, settings=settings)) as service,
        serve(FRONTEND_APP, port=allowed_port) as allowed_url,
        serve(FRONTEND_APP, port=other_port) as other_url,
    ):
        page.load(allowed_url + "/")
        written = page.js(_fetch_graphql(service, remember, scope))
        page.load(other_url + "/")
        blocked = page.js(_fetch_graphql(service, remember, scope))

    assert written["status"] == 200, written
    assert written["body"]["data"]["remember"]["fact"]["text"] == "Grace writes COBOL"
    assert written["bookmark"], "the page can read the bookmark header"
    assert "blocked" in blocked, blocked
    stored = memory.lexical_search(scope, "COBOL", include_entities=False)
    assert len(stored) == 1, "the blocked page's preflight failed, so nothing was written"


def test_keys_work_from_another_origin_in_the_browser(memory: Memory, scope: str) -> None:
    port = free_port()
    origin = f"http://127.0.0.1:{port}"
    settings = memory.settings.with_overrides(cors_origins=(origin,))
    app = create_app(memory=memory, settings=settings, require_auth=True)
    store = KeyStore(memory.db)
    key, token = store.create([scope], "reader")
    ask = json.dumps(
        {
            "query": "query($s: String!) { timeline(scope: $s) { edges { cursor } } }",
            "variables": {"s": scope},
        }
    )
    script = """
    (async (url, token, body) => {
      const call = (headers) => fetch(url, {method: "POST", body,
        headers: {"Content-Type": "application/json", ...headers}});
      const ok = await call({"Authorization": "Bearer " + token});
      const bad = await call({"Authorization": "Bearer fg_wrong"});
      const code = (await bad.json()).errors[0].extensions.code;
      return {ok: ok.status, bad: bad.status, badCode: code};
    })(%s, %s, %s)
    """
    try:
        with (
            chromium_page() as page,
            serve(app) as service,
            serve(FRONTEND_APP, port=port) as frontend,
        ):
            page.load(frontend + "/")
            seen = page.js(
                script % (json.dumps(service + "/graphql"), json.dumps(token), json.dumps(ask))
            )
    finally:
        store.delete(key.id)

    assert seen == {"ok": 200, "bad": 401, "badCode": "UNAUTHENTICATED"}


SUBSCRIBE_IN_PAGE = """
window.live = new Promise((resolve) => {
  const ws = new WebSocket(%(url)s, "graphql-transport-ws");
  ws.onopen = () => ws.send(JSON.stringify(
    {type: "connection_init", payload: {Authorization: "Bearer " + %(token)s}}));
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.type === "connection_ack") {
      ws.send(JSON.stringify({id: "1", type: "subscribe", payload: {
        query: "subscription($s: String!) { scopeEvents(scope: $s) " +
               "{ ... on FactChange { action fact { text } } } }",
        variables: {s: %(scope)s}}}));
    } else if (msg.type === "next") {
      resolve({event: msg.payload.data.scopeEvents});
      ws.close();
    } else if (msg.type === "error") {
      resolve({error: msg.payload});
    }
  };
  ws.onclose = (e) => resolve({closed: e.code});
}), "started"
"""


def test_a_page_on_an_allowed_origin_subscribes_with_its_key_and_another_origin_cannot(
    memory: Memory, scope: str
) -> None:
    allowed_port, other_port = free_port(), free_port()
    settings = memory.settings.with_overrides(cors_origins=(f"http://127.0.0.1:{allowed_port}",))
    app = create_app(memory=memory, settings=settings, require_auth=True)
    store = KeyStore(memory.db)
    key, token = store.create([scope], "reader")
    try:
        with (
            chromium_page() as page,
            serve(app) as service,
            serve(FRONTEND_APP, port=allowed_port) as allowed_url,
            serve(FRONTEND_APP, port=other_port) as other_url,
        ):
            script = SUBSCRIBE_IN_PAGE % {
                "url": json.dumps(service.replace("http://", "ws://") + "/graphql"),
                "token": json.dumps(token),
                "scope": json.dumps(scope),
            }
            page.load(other_url + "/")
            page.js(script)
            refused = page.js("window.live")
            page.load(allowed_url + "/")
            page.js(script)
            while memory.events.subscribers(scope) < 1:  # the subscription is registered
                time.sleep(0.01)
            memory.remember(scope, {"text": "Fay reads the news live"})
            live = page.js("window.live")
    finally:
        store.delete(key.id)

    assert refused == {"closed": 1006}, "the handshake from a foreign origin is refused"
    assert live == {"event": {"action": "REMEMBER", "fact": {"text": "Fay reads the news live"}}}
