"""Check the Neo4j Browser in a real browser: a supersede chain in its graph view, screenshotted.

Headless chromium, driven over the DevTools protocol (websockets) like
bench/graphiql_screenshot.py, opens the Browser of factgraph's local Neo4j, logs in, checks
that `browser.post_connect_cmd` applied factgraph's style sheet (served by the service at
/neo4j-browser/style.grass), runs a query over a seeded supersede chain and saves the graph
view as a PNG. If the post-connect command left no style, it runs `:style URL` itself and
says so. It then reads the rendered SVG: the run fails unless facts are captioned by their
status and text, each status is drawn in a colour of its own, and a SUPERSEDES edge is named
(captions the layout cut short are reported).
The scope (`--scope`, default browser-demo) is deleted and written afresh on every run.

By default it starts what is not already answering, on ports of its own so it clashes with
no other checkout (FACTGRAPH_NEO4J_BOLT_PORT=8088, FACTGRAPH_NEO4J_HTTP_PORT=7875,
FACTGRAPH_PORT=8011 unless set), and stops what it started:

    .venv/bin/python bench/browser_screenshot.py [--out bench/results/browser_supersede.png]

Against a pair that is already running (nothing started or stopped):

    .venv/bin/python bench/browser_screenshot.py --no-start --service http://localhost:8000 \\
        --browser http://localhost:7474/browser/ --bolt localhost:7687 --password ...

Exits 0 with "skipped" when no chromium is installed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import neo4j
import websockets

from bench.chromium import find_chromium, page_socket

# Ports of this check's own Neo4j and service (the defaults 7687/7474/8000 are often taken).
PORTS = {
    "FACTGRAPH_NEO4J_BOLT_PORT": "8088",
    "FACTGRAPH_NEO4J_HTTP_PORT": "7875",
    "FACTGRAPH_PORT": "8011",
}
ROOT = Path(__file__).resolve().parent.parent
DELETE_SCOPE = (ROOT / "cypher" / "scope_delete.cypher").read_text()
QUERY = "MATCH (f:Fact {{scope: '{scope}'}})-[r]-(n) RETURN f, r, n"
REMEMBER = """
mutation($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { kind reason fact { id status text } }
}"""
FORGET = """
mutation($scope: String!, $id: ID!) { forget(scope: $scope, id: $id, reason: "wrong number") {
  id status } }"""
LIVES_IN = ("Sweden", "Norway", "Berlin")


# -- the service and its Neo4j ---------------------------------------------------------------
def _factgraph() -> list[str]:
    exe = Path(sys.executable).parent / "factgraph"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "factgraph.cli"]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except (OSError, urllib.error.URLError):
        return False


class Stack:
    """The local Neo4j and the service: started unless they answer, stopped if started here."""

    def __init__(self, service: str, browser: str, log: Path) -> None:
        self.service = service
        self.browser = browser
        self.log = log
        self.started_neo4j = False
        self.serve: subprocess.Popen[bytes] | None = None

    def up(self) -> None:
        if not _answers(self.browser):
            print("starting the local Neo4j (factgraph neo4j start)...", flush=True)
            subprocess.run([*_factgraph(), "neo4j", "start"], cwd=ROOT, check=True)
            self.started_neo4j = True
        if not _answers(f"{self.service}/healthz"):
            print(f"starting the service (factgraph serve, log {self.log})...", flush=True)
            with open(self.log, "ab") as out:
                self.serve = subprocess.Popen(
                    [*_factgraph(), "serve"], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
                )
            deadline = time.monotonic() + 120
            while not _answers(f"{self.service}/healthz"):
                if self.serve.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"factgraph serve did not come up; see {self.log}")
                time.sleep(0.5)

    def down(self) -> None:
        if self.serve is not None:
            self.serve.terminate()
            try:
                self.serve.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.serve.kill()
                self.serve.wait()
        if self.started_neo4j:
            subprocess.run([*_factgraph(), "neo4j", "stop"], cwd=ROOT, check=False)


def _graphql(service: str, api_key: str | None, query: str, **variables: Any) -> dict[str, Any]:
    headers = {"content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    body = json.dumps({"query": query, "variables": variables}).encode()
    request = urllib.request.Request(f"{service}/graphql", data=body, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        reply: dict[str, Any] = json.load(response)
    if reply.get("errors"):
        raise RuntimeError(f"GraphQL error: {reply['errors']}")
    data: dict[str, Any] = reply["data"]
    return data


def seed(args: argparse.Namespace) -> list[str]:
    """A fresh scope: three facts where each new home supersedes the last, plus one fact
    quarantined (untrusted source) and one forgotten, so every status shows."""
    with neo4j.GraphDatabase.driver(
        f"neo4j://{args.bolt}", auth=(args.user, args.password)
    ) as driver:
        driver.execute_query(DELETE_SCOPE, scope=args.scope, database_=args.database)
    lines = []

    def remember(fact: dict[str, Any]) -> dict[str, Any]:
        result: dict[str, Any] = _graphql(
            args.service, args.api_key, REMEMBER, scope=args.scope, fact=fact
        )["remember"]
        lines.append(f"{result['kind']:<10} {result['fact']['text']!r}: {result['reason']}")
        return result

    for country in LIVES_IN:
        remember(
            {
                "text": f"Melanie lives in {country}",
                "subject": "Melanie",
                "predicate": "lives_in",
                "object": country,
                "tags": ["home"],
            }
        )
    remember(
        {
            "text": "Melanie lives on the Moon",
            "subject": "Melanie",
            "predicate": "lives_in",
            "object": "the Moon",
            "source": "web",  # an untrusted source: quarantined, the chain is untouched
        }
    )
    phone = remember(
        {"text": "Melanie's phone is 555-0100", "subject": "Melanie", "predicate": "phone"}
    )
    _graphql(args.service, args.api_key, FORGET, scope=args.scope, id=phone["fact"]["id"])
    lines.append(f"FORGOTTEN  {phone['fact']['text']!r}")
    return lines


# -- the browser -----------------------------------------------------------------------------
class Page:
    """One DevTools-protocol session on a page."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0

    async def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        msg_id = self.next_id
        await self.ws.send(json.dumps({"id": msg_id, "method": method, "params": params}))
        while True:
            reply = json.loads(await self.ws.recv())
            if reply.get("id") == msg_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))

    async def evaluate(self, expression: str) -> Any:
        result = await self.call(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    async def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = await self.evaluate(expression)
            if value or time.monotonic() > deadline:
                return value
            await asyncio.sleep(0.25)

    async def type_into(self, selector: str, text: str) -> None:
        """Replace an input's text as a user would (React only sees real input events)."""
        await self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.focus(); if (e.select) e.select(); return true; })()"
        )
        await self.call("Input.insertText", text=text)


def _grass_caption() -> str:
    """The Fact caption in the style the Browser stored (what it will draw)."""
    return (
        "(() => { try { const g = JSON.parse(localStorage.getItem('neo4j.grass') || 'null');"
        " return (g && g['node.Fact'] && g['node.Fact'].caption) || ''; }"
        " catch (e) { return ''; } })()"
    )


# Per rendered node its fill and the caption lines drawn in it; per relationship its caption.
_READ_GRAPH = """(() => {
  const nodes = [...document.querySelectorAll('svg g.node')].map(g => {
    const circle = g.querySelector('circle.b-outline') || g.querySelector('circle');
    const caption = [...g.querySelectorAll('text')].map(t => t.textContent).join(' ');
    return {fill: circle ? circle.getAttribute('fill') : null, caption};
  });
  const rels = [...document.querySelectorAll('svg g.relationship text')].map(t => t.textContent);
  return {nodes, rels};
})()"""


async def drive(ws_url: str, args: argparse.Namespace, report: dict[str, Any]) -> None:
    async with websockets.connect(ws_url, max_size=2**27) as ws:
        page = Page(ws)
        await page.call(
            "Emulation.setDeviceMetricsOverride",
            width=args.width,
            height=args.height,
            deviceScaleFactor=1,
            mobile=False,
        )
        url = f"{args.browser}?dbms=neo4j://{args.user}@{args.bolt}&preselectAuthMethod=NATIVE"
        await page.call("Page.navigate", url=url)
        if not await page.wait_for("!!document.querySelector('[data-testid=password]')", 60):
            raise RuntimeError(f"no login form at {url}")
        await page.type_into("[data-testid=username]", args.user)
        await page.type_into("[data-testid=password]", args.password)
        await page.evaluate("document.querySelector('[data-testid=connect]').click()")
        connected = await page.wait_for(
            "document.body.innerText.includes('You are connected as user')", 30
        )
        if not connected:
            raise RuntimeError("the Browser did not connect (wrong password?)")

        # browser.post_connect_cmd runs `:style URL; :play URL` right after connecting.
        caption = await page.wait_for(_grass_caption(), 15)
        report["post_connect_style"] = bool(caption)
        if not caption:
            frames = await page.evaluate("document.body.innerText")
            report["post_connect_frames"] = [
                line for line in str(frames).splitlines() if line.startswith((":style", ":play"))
            ]
            style_url = f"{args.service}/neo4j-browser/style.grass"
            print(f"post_connect_cmd did not apply the style; running :style {style_url}")
            await run_in_editor(page, f":style {style_url}")
            caption = await page.wait_for(_grass_caption(), 15)
        report["fact_caption_rule"] = caption
        if not caption:
            raise RuntimeError("the Browser holds no caption rule for :Fact after :style")

        query = args.query or QUERY.format(scope=args.scope)
        await run_in_editor(page, query)
        rendered = await page.wait_for(
            "document.querySelectorAll('svg g.node').length >= 6 && "
            "document.querySelectorAll('svg g.relationship').length >= 5",
            30,
        )
        if not rendered:
            raise RuntimeError("the graph view did not render")
        # The newest frame is on top: fill the window with it, let the layout settle.
        await page.evaluate(
            "(() => { const b = document.querySelector('button[title=\"Fullscreen\"]');"
            " if (b) b.click(); return !!b; })()"
        )
        await asyncio.sleep(args.settle)
        for _ in range(args.zoom):  # the layout is small in a large view: captions legible
            await page.evaluate("document.querySelector('button.zoom-in').click() || true")
            await asyncio.sleep(0.5)
        await asyncio.sleep(1)
        report["graph"] = await page.evaluate(_READ_GRAPH)
        shot = await page.call("Page.captureScreenshot", format="png")
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_bytes(base64.b64decode(shot["data"]))


async def run_in_editor(page: Page, command: str) -> None:
    """Type into the Browser's main editor and press its run button."""
    await page.evaluate(
        "document.querySelector('[data-testid=activeEditor] textarea').focus() || true"
    )
    await page.call("Input.insertText", text=command)
    await asyncio.sleep(0.3)
    await page.evaluate("document.querySelector('[data-testid=editor-Run]').click() || true")


def check(report: dict[str, Any]) -> list[str]:
    """What is wrong with the rendered graph; empty when facts and SUPERSEDES read well."""
    problems = []
    graph = report.get("graph") or {"nodes": [], "rels": []}
    captions = [" ".join(str(n["caption"]).split()) for n in graph["nodes"]]
    for country in LIVES_IN:
        if not any(f"Melanie lives in {country}" in c or country in c for c in captions):
            problems.append(f"no node captioned with the fact about {country}")
    for status in ("active", "superseded", "quarantined"):
        if not any(c.lower().startswith(status) for c in captions):
            problems.append(f"no fact captioned with status {status!r}")
    if "SUPERSEDES" not in graph["rels"]:
        problems.append("no relationship captioned SUPERSEDES")
    # Each status in its own colour: a label without a rule of its own (the vector shard's,
    # :VectorShard07) would get a colour the Browser picks, drawn over the status colour.
    fills: dict[str, set[str]] = {}
    for node, caption in zip(graph["nodes"], captions, strict=True):
        status = caption.split(" - ")[0].lower()
        if status in ("active", "superseded", "quarantined", "forgotten"):
            fills.setdefault(status, set()).add(str(node["fill"]).upper())
    one_each = all(len(colours) == 1 for colours in fills.values())
    distinct = len({colour for colours in fills.values() for colour in colours}) == len(fills)
    if not (one_each and distinct):
        problems.append(f"facts are not coloured by status: {fills}")
    return problems


def main() -> int:
    for name, port in PORTS.items():
        os.environ.setdefault(name, port)
    from graph.config import Settings

    settings = Settings.from_env()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--service", default=f"http://localhost:{settings.port}")
    parser.add_argument(
        "--browser", default=f"http://localhost:{settings.local.http_port}/browser/"
    )
    parser.add_argument("--bolt", default=f"localhost:{settings.local.bolt_port}", help="host:port")
    parser.add_argument("--user", default=settings.neo4j_user)
    parser.add_argument("--password", default=settings.neo4j_password)
    parser.add_argument("--database", default=settings.neo4j_database)
    parser.add_argument("--api-key", default=os.environ.get("FACTGRAPH_API_KEY"))
    parser.add_argument("--scope", default="browser-demo")
    parser.add_argument("--query", help=f"Cypher to show (default: {QUERY.format(scope='SCOPE')})")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "browser_supersede.png"))
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--zoom", type=int, default=2, help="clicks on the zoom-in button")
    parser.add_argument("--settle", type=float, default=4.0, help="seconds for the layout")
    parser.add_argument(
        "--no-start", action="store_true", help="use what runs; start and stop nothing"
    )
    args = parser.parse_args()
    args.browser = args.browser if args.browser.endswith("/") else args.browser + "/"
    args.service = args.service.rstrip("/")

    browser = find_chromium()
    if browser is None:
        print("skipped: no chromium on PATH")
        return 0
    stack = Stack(args.service, args.browser, Path(tempfile.gettempdir()) / "factgraph-serve.log")
    report: dict[str, Any] = {}
    try:
        if not args.no_start:
            stack.up()
        for line in seed(args):
            print(f"seeded {line}")
        report = screenshot(browser, args)
    finally:
        stack.down()
    print(f"screenshot: {args.out}")
    print(f"post_connect_cmd applied the style: {report.get('post_connect_style')}")
    if report.get("post_connect_frames"):
        print("  its frames:", report["post_connect_frames"])
    print(f"Fact caption rule in the Browser: {report.get('fact_caption_rule')!r}")
    graph = report.get("graph") or {"nodes": [], "rels": []}
    for node in graph["nodes"]:
        print(f"  node {node['fill']}: {' '.join(str(node['caption']).split())!r}")
    print(f"  relationship captions: {sorted(set(graph['rels']))}")
    cut = [r for r in graph["rels"] if r != "SUPERSEDES" and r.startswith("SUPE")]
    if cut:
        # The Browser cuts a caption longer than its edge; the layout decides the length.
        print(f"note: {len(cut)} SUPERSEDES caption(s) cut short by the layout: {cut}")
    problems = check(report)
    for problem in problems:
        print(f"FAIL: {problem}")
    return 1 if problems else 0


def screenshot(browser: str, args: argparse.Namespace) -> dict[str, Any]:
    port = int(os.environ.get("CDP_PORT", "9348"))
    report: dict[str, Any] = {}
    with page_socket(browser, port, [f"--window-size={args.width},{args.height}"]) as ws_url:
        asyncio.run(drive(ws_url, args, report))
    return report


if __name__ == "__main__":
    sys.exit(main())
