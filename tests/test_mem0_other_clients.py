"""mem0's other clients, unchanged, against a real factgraph server: the 1.x Python client (the
line LlamaIndex's mem0 memory pins) and the JavaScript client from npm.

Each runs a script of the calls its users make (tests/mem0_clients/) in a process of its own,
provisioned into the git-ignored .factgraph/mem0-clients/ on first use (tests/mem0_helpers.py),
with mem0's telemetry off; the test checks what the script saw.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from starlette.applications import Starlette

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import namespace_prefix
from graph.memory import Memory
from tests.mem0_helpers import SCRIPTS, javascript, project, python_v1, scenario


@pytest.fixture
def keyed(secured: tuple[Starlette, str], memory: Memory) -> Iterator[tuple[str, str, str]]:
    """The server's URL, a project of the test's own and a key to it."""
    app, url = secured
    with project(app, memory) as (name, token):
        yield url, name, token


def test_the_1x_python_client(keyed: tuple[str, str, str], memory: Memory) -> None:
    url, name, token = keyed
    user = f"u-{uuid.uuid4().hex[:8]}"
    seen = scenario([str(python_v1()), str(SCRIPTS / "python_v1.py"), url, token, user])
    assert seen["project_id"] == name and seen["org_id"] == "factgraph"
    assert seen["add_events"] == ["ADD", "ADD"]
    assert seen["search_top"] == "I am vegetarian"
    assert seen["search_filtered"] == ["Prefers email over calls"]
    assert seen["list"] == ["I am vegetarian", "I live in Oslo", "Prefers email over calls"]
    assert seen["paged_count"] == 3
    assert seen["get"] == "I am vegetarian"
    assert seen["updated"] == "I live in Bergen"
    assert seen["history"] == ["ADD", "UPDATE"]
    assert seen["users"] == [["agent", "helper"], ["user", user]]
    assert seen["bad_filter"] == ["ValidationError", "filters.mood"]
    assert seen["bad_add"] == ["ValidationError", "user_id"]
    assert seen["deleted_get"] == ["MemoryNotFoundError", None]
    assert seen["delete_all"]["deleted"] == 2
    assert seen["after"] == []
    assert seen["async_search"] == ["Rides a red bicycle"]
    assert store.project_scopes(memory.db, namespace_prefix(name))  # it wrote there


def test_the_javascript_client(keyed: tuple[str, str, str]) -> None:
    url, name, token = keyed
    user = f"u-{uuid.uuid4().hex[:8]}"
    folder = javascript()
    seen = scenario(["node", str(SCRIPTS / "client.cjs"), str(folder), url, token, user])
    assert seen["projectId"] == name and seen["organizationId"] == "factgraph"
    assert seen["addEvents"] == ["ADD", "ADD"]
    assert seen["searchTop"] == "I collect vinyl records"
    assert seen["searchMetadata"] == {"from": "js"}
    assert seen["listed"] == ["I collect vinyl records", "My cat is called Miso"]
    assert seen["count"] == 2
    assert seen["get"] == "My cat is called Miso"
    assert seen["updated"] == "My cat is called Tofu"
    assert seen["history"] == [
        ["ADD", None, "My cat is called Miso"],
        ["UPDATE", "My cat is called Miso", "My cat is called Tofu"],
    ]
    assert seen["users"] == [["user", user]]
    assert seen["afterBatch"] == "I collect jazz records"
    assert seen["feedback"] == "POSITIVE"
    assert seen["badFilter"][0] == "ValidationError" and "filters.colour" in seen["badFilter"][1]
    assert seen["deletedGet"][0] == "MemoryNotFoundError"
    assert seen["deleteAll"]["deleted"] == 1
    assert seen["after"] == []
