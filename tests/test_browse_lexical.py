"""Lexical search: substring, case-insensitive, newest first, archived facts skipped."""

from __future__ import annotations

import dataclasses
import socket

import neo4j
import pytest

from graph.browse import lexical, lexical_search
from graph.config import Settings
from graph.errors import DatabaseUnavailable
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage.cypher import load
from graph.storage.db import Database
from graph.write.entities import DefaultEntityResolver
from graph.write.facts import DecisionKind
from tests.browse_helpers import add


@pytest.fixture(autouse=True, params=["sorted", "walk"])
def strategy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every behaviour holds on both paths: few matches sorted, many found by an index walk."""
    if request.param == "walk":
        monkeypatch.setattr(lexical, "SORT_CAP", 0)
    return str(request.param)


def _fact_ids(memory: Memory, scope: str, query: str, **kwargs: object) -> list[str]:
    hits = memory.lexical_search(scope, query, include_entities=False, **kwargs)  # type: ignore[arg-type]
    assert all(hit.type == "fact" for hit in hits)
    return [hit.id for hit in hits]


def test_matches_a_substring_of_the_text_whatever_the_case(memory: Memory, scope: str) -> None:
    tea = add(memory, scope, "Ana drinks Earl Grey every morning")
    add(memory, scope, "Bo plays chess on Sundays")
    assert _fact_ids(memory, scope, "EARL gr") == [tea]
    assert _fact_ids(memory, scope, "  grey every  ") == [tea]


def test_matches_subject_predicate_object_and_tags(memory: Memory, scope: str) -> None:
    fact = add(
        memory,
        scope,
        "She moved last spring",
        subject="Melanie",
        predicate="lives_in",
        object="Stockholm",
        tags=["relocation"],
    )
    for needle in ("melanie", "lives_in", "stockholm", "RELOCAT"):
        assert _fact_ids(memory, scope, needle) == [fact], needle


def test_matches_through_an_alias_of_a_mentioned_entity(
    db: Database, embedder: Embedder, scope: str
) -> None:
    aliased = Memory(db, embedder, resolver=DefaultEntityResolver({"Bobby": "Robert"}))
    first = add(aliased, scope, "Robert fixed the billing bug", subject="Robert")
    # "Bobby" resolves to the same entity and becomes one of its aliases.
    second = add(aliased, scope, "He also wrote the release notes", subject="Bobby", day=1)
    assert _fact_ids(aliased, scope, "bobby") == [second, first]


def test_results_are_newest_first_by_valid_time(memory: Memory, scope: str) -> None:
    old = add(memory, scope, "garden note: planted tulips", day=1)
    new = add(memory, scope, "garden note: tulips bloomed", day=30)
    middle = add(memory, scope, "garden note: watered the tulips", day=10)
    assert _fact_ids(memory, scope, "garden note") == [new, middle, old]


def test_limit_and_exclude_ids(memory: Memory, scope: str) -> None:
    ids = [add(memory, scope, f"ticket QX-{i} was closed", day=i) for i in range(5)]
    newest_first = ids[::-1]
    assert _fact_ids(memory, scope, "qx-", limit=2) == newest_first[:2]
    excluded = [newest_first[0], newest_first[2], "no-such-id"]
    assert _fact_ids(memory, scope, "qx-", exclude_ids=excluded) == [
        newest_first[1],
        newest_first[3],
        newest_first[4],
    ]


def test_preview_is_cut_to_300_characters(memory: Memory, scope: str) -> None:
    text = "needle " + "x" * 600
    add(memory, scope, text)
    (hit,) = memory.lexical_search(scope, "needle", include_entities=False)
    assert hit.preview == text[:300]
    assert hit.time is not None


def test_archived_facts_are_skipped(memory: Memory, scope: str) -> None:
    kept = add(memory, scope, "archive probe: kept")
    forgotten = add(memory, scope, "archive probe: to forget")
    memory.forget(scope, forgotten)
    old = add(memory, scope, "archive probe: old value")
    newer = memory.supersede(scope, old, {"text": "archive probe: replacement"}).fact.id
    held = memory.remember_with_decision(
        scope, {"text": "archive probe: from the web", "source": "web"}
    )
    assert held.kind is DecisionKind.QUARANTINE
    assert sorted(_fact_ids(memory, scope, "archive probe")) == sorted([kept, newer])


def test_entities_are_returned_as_entity_hits(memory: Memory, scope: str) -> None:
    fact = add(memory, scope, "Works at the observatory", subject="Priya Raman")
    hits = memory.lexical_search(scope, "priya")
    # The entity was created now, the fact is valid from 2025: newest first puts it ahead.
    assert [(h.type, h.id) for h in hits] == [("entity", "entity:priya raman"), ("fact", fact)]
    assert hits[0].preview == "Priya Raman"


def test_empty_query_and_unknown_scope_give_no_results(memory: Memory, scope: str) -> None:
    add(memory, scope, "anything at all")
    assert memory.lexical_search(scope, "") == []
    assert memory.lexical_search(scope, "   ") == []
    assert memory.lexical_search("no-such-scope-" + scope, "anything") == []


def test_another_scope_is_never_searched(memory: Memory, scope: str, other_scope: str) -> None:
    add(memory, other_scope, "shared secret phrase", subject="Zed")
    assert memory.lexical_search(scope, "secret phrase") == []
    assert memory.lexical_search(scope, "zed") == []


def test_runs_on_the_text_indexes_not_a_label_scan(db: Database) -> None:
    params = {"scope": "s", "needle": "x", "exclude_ids": [], "limit": 10, "now": None, "cap": 9}
    for name in ("browse_lexical", "browse_lexical_entities"):
        _, summary, _ = db.driver.execute_query("EXPLAIN " + load(name), params)
        plan = str(summary.plan)
        assert "NodeIndexContainsScan" in plan, name
        assert "TEXT INDEX" in plan and "lexical_text" in plan, name
        assert "NodeByLabelScan" not in plan and "AllNodesScan" not in plan, name


@pytest.fixture
def free_port() -> int:
    """A loopback port nothing listens on: a Neo4j that is down."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_neo4j_outage_is_a_clear_error(settings: Settings, free_port: int) -> None:
    down = Database(dataclasses.replace(settings, neo4j_uri=f"bolt://127.0.0.1:{free_port}"))
    # Same Database, a driver that gives up at once instead of retrying for 15 s.
    down.driver.close()
    down.driver = neo4j.GraphDatabase.driver(
        down.settings.bolt_uri, auth=("neo4j", "x"), max_transaction_retry_time=0
    )
    try:
        with pytest.raises(DatabaseUnavailable, match="unavailable"):
            lexical_search(down, "any-scope", "needle")
    finally:
        down.close()


def test_common_needles_walk_the_valid_time_index_in_order(db: Database) -> None:
    params = {"scope": "s", "needle": "x", "exclude_ids": [], "limit": 10, "now": None}
    _, summary, _ = db.driver.execute_query("EXPLAIN " + load("browse_lexical_dense"), params)
    plan = str(summary.plan)
    assert "RANGE INDEX f:Fact(scope, valid_from)" in plan
    assert "'operatorType': 'Top@" not in plan and "'operatorType': 'Sort@" not in plan
