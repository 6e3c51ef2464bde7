"""Every fenced example of the README and docs/ runs as written, so the pages cannot drift.

A page's examples run in order, as a reader follows them, against one real server for the whole
module (uvicorn on a free port, the suite's Neo4j and model): Python in one namespace per page
(top-level `await` allowed, as in `python -m asyncio`), shell with bash from a scratch directory
shaped like a checkout (`.venv`, `cypher/`), GraphQL posted to the server (a schema excerpt is
compared with `schema.graphql`, a subscription validated against it), Cypher run with `$scope`,
a host's JSON configuration parsed and, for MCP over HTTP, connected. Only the address and the
scope change: the documented service address becomes the server's, and each scope an example
names (`alice`, `acme`, ...) the test's own. What a block prints must hold no GraphQL or REST
error. A block that only illustrates carries `<!-- not-run: why -->` (tests/doc_examples.py).

Claims of shape are checked against the live answers too: the MCP page's tool table against
`tools/list`, the fields of its `search` answer and of REST's against what they return, the
client's method table against the client.

A runner for TypeScript and JavaScript blocks goes in RUNNERS; until then those blocks carry a
marker.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib.metadata as metadata
import inspect
import io
import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from graphql import (
    DocumentNode,
    ObjectTypeDefinitionNode,
    OperationDefinitionNode,
    UnionTypeDefinitionNode,
    build_schema,
    parse,
    print_ast,
    validate,
)
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from factgraph.cli import build_parser
from factgraph_client import Client
from graph.adapters.mem0 import store as mem0_store
from graph.adapters.mem0.entities import namespace_prefix
from graph.config import Settings
from graph.memory import Memory
from graph.storage.db import Database
from resolvers.app import create_app
from tests.cli_helpers import cli_env
from tests.doc_examples import ROOT, Block, blocks, client_extras_before, pages
from tests.live_server import serve
from tests.mcp_helpers import ok, over_http

# The service's address as the pages write it (the replicas' balancer, REST's drop-in port).
ADDRESSES = (
    "http://127.0.0.1:8000",
    "http://localhost:8000",
    "http://localhost:8321",
    "localhost:8080",
)
# The scopes examples name; each becomes the test's own where it stands quoted or after --scope.
SCOPES = ("alice", "acme", "demo", "my-agent", "quickstart")
PAGES = [page for page in pages() if blocks(page)]


@dataclass
class Site:
    url: str
    default_scope: str  # where REST and mem0 calls that name no scope land


@pytest.fixture(scope="module")
def site(memory: Memory, db: Database) -> Iterator[Site]:
    default = f"test-{uuid.uuid4().hex[:12]}"
    settings = memory.settings.with_overrides(default_scope=default)
    with serve(create_app(memory=memory, settings=settings)) as url:
        yield Site(url, default)
    drop(db, default)


def drop(db: Database, scope: str) -> None:
    """The scope and its mem0 project's scopes (`<scope>/user:alice`)."""
    for name in [scope, *mem0_store.project_scopes(db, namespace_prefix(scope))]:
        db.write("scope_delete", {"scope": name})


# -- running a page --------------------------------------------------------------------------


@dataclass
class Reader:
    """One reader following one page: its server, scope, scratch directory and namespace."""

    site: Site
    scope: str
    settings: Settings
    db: Database
    workdir: Path
    namespace: dict[str, Any] = field(default_factory=dict)
    ran: int = 0

    def text(self, block: Block) -> str:
        code = block.code
        for address in ADDRESSES:
            code = code.replace(address, self.site.url)
        for name in SCOPES:
            for quote in ('"', '\\"', "'"):
                code = code.replace(f"{quote}{name}{quote}", f"{quote}{self.scope}{quote}")
            code = re.sub(rf"--scope {re.escape(name)}\b", f"--scope {self.scope}", code)
        return code

    def run(self, block: Block) -> None:
        runner = RUNNERS.get(block.lang)
        assert runner is not None, f"{block.where}: no runner for {block.lang!r}"
        runner(self, block, self.text(block))
        self.ran += 1


def no_errors(block: Block, output: str) -> None:
    """The JSON documents an example printed hold no GraphQL `errors` nor REST `error`."""
    decoder, at = json.JSONDecoder(), 0
    while at < len(output):
        start = min((i for i in (output.find("{", at), output.find("[", at)) if i >= 0), default=-1)
        if start < 0:
            return
        try:
            value, at = decoder.raw_decode(output, start)
        except ValueError:
            at = start + 1
            continue
        if isinstance(value, dict):
            assert not value.get("errors") and "error" not in value, f"{block.where}: {value}"


def run_python(reader: Reader, block: Block, code: str) -> None:
    compiled = compile(code, block.where, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = eval(compiled, reader.namespace)
        if inspect.iscoroutine(result):
            asyncio.run(result)
    no_errors(block, printed.getvalue())


def run_shell(reader: Reader, block: Block, code: str) -> None:
    bin_dir = Path(sys.executable).parent
    env = {
        **cli_env(reader.settings, reader.workdir / ".factgraph"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", code],
        cwd=reader.workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{block.where}:\n{done.stdout}\n{done.stderr}"
    no_errors(block, done.stdout + done.stderr)


SCHEMA = build_schema((ROOT / "schema.graphql").read_text())


def run_graphql(reader: Reader, block: Block, code: str) -> None:
    document = parse(code)
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if not operations:
        same_as_the_schema(block, document)
        return
    assert validate(SCHEMA, document) == [], block.where
    if any(op.operation.value == "subscription" for op in operations):
        return  # valid against the schema; tests/test_subscriptions.py runs subscriptions
    answer = httpx.post(f"{reader.site.url}/graphql", json={"query": code}, timeout=120).json()
    assert not answer.get("errors"), f"{block.where}: {answer['errors']}"


def same_as_the_schema(block: Block, excerpt: DocumentNode) -> None:
    """Each type of an excerpt of the schema is as `schema.graphql` has it (its fields, their
    arguments and types; a union's members)."""
    real = parse((ROOT / "schema.graphql").read_text())
    by_name = {
        d.name.value: d
        for d in real.definitions
        if isinstance(d, ObjectTypeDefinitionNode | UnionTypeDefinitionNode)
    }
    for shown in excerpt.definitions:
        assert isinstance(shown, ObjectTypeDefinitionNode | UnionTypeDefinitionNode)
        actual = by_name[shown.name.value]
        if isinstance(shown, UnionTypeDefinitionNode):
            assert isinstance(actual, UnionTypeDefinitionNode)
            members = [[t.name.value for t in u.types or ()] for u in (shown, actual)]
            assert members[0] == members[1], f"{block.where}: {shown.name.value}"
            continue
        assert isinstance(actual, ObjectTypeDefinitionNode)

        def fields(node: ObjectTypeDefinitionNode) -> dict[str, str]:
            return {
                f.name.value: print_ast(f.type)
                + "".join(f" {a.name.value}: {print_ast(a.type)}" for a in f.arguments or ())
                for f in node.fields or ()
            }

        assert fields(shown) == fields(actual), f"{block.where}: {shown.name.value}"


def run_cypher(reader: Reader, block: Block, code: str) -> None:
    params = {"scope": reader.scope} if "$scope" in code else {}
    reader.db.driver.execute_query(code, params, database_=reader.db.name)


def run_json(reader: Reader, block: Block, code: str) -> None:
    """A host's configuration: the factgraph command's arguments parse; MCP over HTTP answers
    `tools/list` with the configured headers."""
    config = json.loads(code)
    for server in config.get("mcpServers", {}).values():
        if "url" in server:
            assert mcp_tools(server["url"], server.get("headers", {})), block.where
        else:
            assert server["command"].endswith("/.venv/bin/factgraph"), block.where
            build_parser()[0].parse_args(server["args"])


def mcp_tools(url: str, headers: dict[str, str]) -> list[str]:
    """The tools an MCP host configured with this URL and these headers is offered."""

    async def main() -> list[str]:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    return anyio.run(main)


def run_http(reader: Reader, block: Block, code: str) -> None:
    """`METHOD /path` then a JSON body, sent to the server in the test's scope."""
    request, _, body = code.partition("\n")
    method, path = request.split()
    answer = httpx.request(
        method,
        f"{reader.site.url}{path}",
        json=json.loads(body) if body.strip() else None,
        headers={"X-Scope": reader.scope},
        timeout=120,
    )
    assert answer.status_code < 300, f"{block.where}: {answer.text}"


RUNNERS: dict[str, Callable[[Reader, Block, str], None]] = {
    "python": run_python,
    "bash": run_shell,
    "sh": run_shell,
    "graphql": run_graphql,
    "cypher": run_cypher,
    "json": run_json,
    "http": run_http,
    # "typescript" / "javascript": a runner goes here (node with the page's packages).
}


def test_every_example_runs_or_says_why_it_does_not() -> None:
    unmarked, reasons = [], []
    for page in pages():
        for block in blocks(page):
            if block.not_run is None and block.lang not in RUNNERS:
                unmarked.append(f"{block.where} ({block.lang or 'no language'})")
            for named in re.findall(r"tests/\w+\.py", block.not_run or ""):
                if not (ROOT / named).exists():
                    reasons.append(f"{block.where}: {named}")
    assert unmarked == [] and reasons == []


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_the_examples_of_a_page_run_as_written(
    page: Path, site: Site, settings: Settings, db: Database, tmp_path: Path
) -> None:
    scope = f"test-{uuid.uuid4().hex[:12]}"
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    (tmp_path / "cypher").symlink_to(ROOT / "cypher")
    reader = Reader(site, scope, settings, db, tmp_path)
    try:
        for block in blocks(page):
            if block.not_run is None:
                reader.run(block)
    finally:
        drop(db, scope)


# -- claims of shape -------------------------------------------------------------------------


def documented_fields(text: str, name: str) -> set[str]:
    """The fields a page lists for an answer part, written `` `results` {id, text, ...} ``."""
    match = re.search(rf"`{name}` \{{([^}}]*)\}}", text)
    assert match is not None, name
    return {f.strip() for f in match[1].split(",")} - {"..."}


def mcp_rows() -> dict[str, str]:
    """docs/mcp.md's table of factgraph's own tools: name -> the row."""
    page = (ROOT / "docs" / "mcp.md").read_text()
    table = page.split("| tool | role | what it does |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for row in table.splitlines()[2:]:
        for name in re.findall(r"`(\w+)`", row.split("|")[1]):
            rows[name] = row
    return rows


def test_the_mcp_page_lists_every_tool_and_what_search_answers(site: Site, scope: str) -> None:
    rows = mcp_rows()
    offered = mcp_tools(f"{site.url}/mcp", {"X-Scope": scope})  # an admin's, on loopback
    assert sorted(offered) == sorted(rows)

    async def search(session: ClientSession) -> dict[str, Any]:
        fact = {"text": "Always answer in French", "session_id": "s1", "turn": 1, "tags": ["x"]}
        later = {**fact, "text": "Jon is three years old", "turn": 2}
        await session.call_tool("remember_many", {"facts": [fact, later]})
        found = await session.call_tool(
            "search",
            {"query": "what language to answer in", "top_k": 1, "prev_turns": 1, "next_turns": 1},
        )
        return ok(found)

    answer = over_http(site.url, search, scope=scope)
    row = rows["search"]
    assert set(answer) == {"results", "related", "standing", "answerable", "answerability"}
    assert "`answerable` / `answerability`" in row
    brief = set(answer["related"][0]) - {"reason", "of"}
    assert set(answer["results"][0]) == documented_fields(row, "results")
    assert set(answer["related"][0]) == brief | documented_fields(row, "related")
    assert set(answer["standing"][0]) == brief | documented_fields(row, "standing")


def test_the_mcp_page_lists_the_tools_of_each_knowledge_graph_tool_set(
    site: Site, scope: str
) -> None:
    page = (ROOT / "docs" / "mcp.md").read_text()
    table = page.split("| tool set | stdio | HTTP | tools |", 1)[1].split("\n\n", 1)[0]
    for row in table.splitlines()[2:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        path = re.match(r"`(/mcp[\w/-]*)`", cells[2])
        assert path is not None, row
        if path[1] == "/mcp":
            continue  # "the tools above": test_the_mcp_page_lists_every_tool_...
        listed = re.findall(r"`(\w+)`", cells[3].split(";")[0])
        offered = mcp_tools(f"{site.url}{path[1]}", {"X-Scope": scope})
        assert sorted(offered) == sorted(listed), path[1]


def test_the_rest_page_names_the_fields_of_a_search_answer(site: Site, scope: str) -> None:
    page = " ".join((ROOT / "docs" / "rest.md").read_text().split())
    said = re.search(r"It answers `\{results: \[\{memory: \{([^}]*)\}, ([^}]*)\}\], related", page)
    standing = re.search(r"standing: \[\{([^}]*)\}\], answerable, answerability\}`", page)
    assert said is not None and standing is not None
    http = httpx.Client(base_url=site.url, headers={"X-Scope": scope}, timeout=120)
    for text in ("Bob lives in Paris", "Always answer in French"):
        http.post("/api/v1/memories", json={"content": text, "tags": ["home"]})
    answer = http.post("/api/v1/search", json={"query": "what language to answer in"}).json()

    def names(listed: str) -> set[str]:
        return {name.strip() for name in listed.split(",")}

    assert set(answer) == {"results", "related", "standing", "answerable", "answerability"}
    assert set(answer["results"][0]) == {"memory", *names(said[2])}
    assert set(answer["results"][0]["memory"]) == names(said[1])
    assert set(answer["standing"][0]) == names(standing[1])


def test_the_client_page_lists_every_method_of_the_client() -> None:
    page = (ROOT / "docs" / "client.md").read_text()
    table = page.split("| method | what it does | endpoint |", 1)[1].split("\n\n", 1)[0]
    listed = {
        name
        for row in table.splitlines()[2:]
        for name in re.findall(r"`(\w+)\(", row.split("|")[1])
    }
    methods = {
        name
        for name, member in vars(Client).items()
        if not name.startswith("_") and inspect.isfunction(member)
    }
    assert listed == methods - {"close"}


def test_the_search_page_names_the_parts_of_a_hit_that_graphql_returns() -> None:
    page = (ROOT / "docs" / "search.md").read_text()
    said = re.search(r"Every hit says why: (.+?)\. Returned", page, re.S)
    assert said is not None
    parts = set(re.findall(r"`(\w+)`", said[1]))
    hit = SCHEMA.get_type("SearchHit")
    assert parts and parts <= set(getattr(hit, "fields", {}))


# -- install lines ---------------------------------------------------------------------------


def requirements(distribution: str, extras: set[str]) -> set[str]:
    """The distributions installing `distribution[extras]` brings, itself included."""
    brought: set[str] = set()
    todo = [(str(canonicalize_name(distribution)), extras)]
    while todo:
        name, wanted = todo.pop()
        if name in brought:
            continue
        brought.add(name)
        for line in metadata.requires(name) or []:
            req = Requirement(line)
            marks = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(m) for m in marks):
                todo.append((str(canonicalize_name(req.name)), set(req.extras)))
    return brought


def imported(code: str) -> set[str]:
    """The top-level modules a block imports."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_each_install_line_installs_what_its_examples_import() -> None:
    """A Python example after `pip install './client[...]'` imports only what that installs
    (the development venv holds more: a module found only there would fail a reader)."""
    providers = {**metadata.packages_distributions()}
    providers.setdefault("factgraph_client", ["factgraph-client"])  # editable: not in the map
    checked, missing = 0, []
    for page in pages():
        for block in blocks(page):
            extras = client_extras_before(block) if block.lang == "python" else None
            if extras is None:
                continue
            brought = requirements("factgraph-client", extras)
            for module in imported(block.code) - set(sys.stdlib_module_names):
                if not {canonicalize_name(d) for d in providers.get(module, [])} & brought:
                    missing.append(f"{block.where}: {module} (extras {sorted(extras)})")
            checked += 1
    assert checked >= 8
    assert missing == []
