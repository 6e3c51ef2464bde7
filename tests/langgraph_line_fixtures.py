"""The fixtures tests/test_langgraph_store.py needs when it runs in a venv of another LangGraph
line (tests/test_langgraph_lines.py), where the service and tests/conftest.py cannot load.

The parent run serves the suite's memory and names it here (FACTGRAPH_TEST_SERVER_URL); each
test gets a fresh scope, listed in FACTGRAPH_TEST_SCOPES for the parent to delete afterwards.
"""

from __future__ import annotations

import os
import uuid

import pytest


@pytest.fixture
def server_url() -> str:
    return os.environ["FACTGRAPH_TEST_SERVER_URL"]


@pytest.fixture
def scope() -> str:
    name = f"test-{uuid.uuid4().hex[:12]}"
    with open(os.environ["FACTGRAPH_TEST_SCOPES"], "a", encoding="utf-8") as listing:
        listing.write(name + "\n")
    return name
