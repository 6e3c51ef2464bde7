"""mem0's filter grammar becomes values, never query text: what each filter matches, where the
database narrows it, and which filters are refused (naming the key that is wrong).

The examples are those of mem0's filter documentation (docs/platform/features/
v2-memory-filters.mdx in mem0ai/mem0); the service's use of them against a real server is
tests/test_mem0_client.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graph.adapters.mem0.entities import EntityIds, ids_of
from graph.adapters.mem0.filters import Filter, matches, normalise, parse
from graph.errors import ValidationError
from graph.write.facts import Fact, FactStatus

NOW = datetime(2024, 1, 15, 12, 0, tzinfo=UTC)


def memory(
    text: str = "Alice pays the invoice",
    *,
    tags: tuple[str, ...] = ("user:alice",),
    metadata: dict[str, Any] | None = None,
    recorded_at: datetime = NOW,
    fact_id: str = "m1",
) -> Fact:
    return Fact(
        id=fact_id,
        scope="p/user:alice",
        partition="default",
        text=text,
        index_text=text,
        subject=None,
        predicate=None,
        object=None,
        tags=tags,
        importance=5.0,
        source="mem0",
        metadata=metadata or {},
        session_id=None,
        turn=None,
        content_hash="h",
        embedder=None,
        status=FactStatus.ACTIVE,
        strength=1.0,
        access_count=0,
        last_accessed_at=None,
        expires_at=None,
        valid_from=recorded_at,
        valid_to=None,
        recorded_at=recorded_at,
        expired_at=None,
        updated_at=recorded_at,
    )


def of(raw: Any) -> Filter:
    return normalise(parse(raw))


def hit(raw: Any, fact: Fact) -> bool:
    """Whether any alternative of the filter matches the memory."""
    ids = ids_of(fact.tags)
    return any(matches(c, fact, ids) for c in of(raw).alternatives)


def refusal(raw: Any) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        of(raw).routes()
    return caught.value


def test_a_bare_id_and_the_same_in_an_and_match_the_same_memories() -> None:
    alice, bob = memory(), memory(tags=("user:bob",))
    for raw in ({"user_id": "alice"}, {"AND": [{"user_id": "alice"}]}):
        assert hit(raw, alice) and not hit(raw, bob)


def test_sibling_keys_are_anded() -> None:
    both = memory(tags=("user:alice", "run:r1"))
    assert hit({"user_id": "alice", "run_id": "r1"}, both)
    assert not hit({"user_id": "alice", "run_id": "r2"}, both)


def test_or_and_in_give_alternatives_each_with_its_own_route() -> None:
    either = of({"OR": [{"user_id": "alice"}, {"agent_id": "bot"}]})
    routes = [route for route, _ in either.routes()]
    assert [r.owner for r in routes] == [("user", "alice"), None]
    assert [r.anchor for r in routes] == ["user:alice", "agent:bot"]
    listed = of({"user_id": {"in": ["a", "b", "c"]}})
    assert [r.owner for r, _ in listed.routes()] == [("user", "a"), ("user", "b"), ("user", "c")]


def test_the_wildcard_matches_any_value_and_not_a_missing_one() -> None:
    raw = {"AND": [{"user_id": "alice"}, {"run_id": "*"}]}
    assert hit(raw, memory(tags=("user:alice", "run:r9")))
    assert not hit(raw, memory())
    ((route, _),) = of({"agent_id": "*"}).routes()
    assert route.anchor is None and route.anchor_prefix == "agent:"


def test_ne_matches_a_missing_value_and_a_guard_excludes_it() -> None:
    other, none = memory(tags=("user:alice", "agent:new")), memory()
    assert hit({"user_id": "alice", "agent_id": {"ne": "old"}}, none)
    guarded = {"AND": [{"user_id": "alice"}, {"agent_id": "*"}, {"agent_id": {"ne": "old"}}]}
    assert hit(guarded, other) and not hit(guarded, none)


def test_not_excludes_categories_and_nested_or() -> None:
    spam = memory(tags=("user:alice", "spam"))
    finance = memory(tags=("user:alice", "finance"))
    raw = {"AND": [{"user_id": "alice"}, {"NOT": {"categories": {"in": ["spam", "test"]}}}]}
    assert hit(raw, finance) and not hit(raw, spam)
    nested = {
        "AND": [
            {"user_id": "alice"},
            {"NOT": {"OR": [{"categories": {"in": ["spam"]}}, {"categories": {"in": ["test"]}}]}},
        ]
    }
    assert hit(nested, finance) and not hit(nested, spam)
    assert hit({"user_id": "alice", "categories": {"contains": "FIN"}}, finance)


def test_time_ranges_compare_dates_as_whole_days() -> None:
    january = memory(recorded_at=datetime(2024, 1, 31, 23, 0, tzinfo=UTC))
    february = memory(recorded_at=datetime(2024, 2, 1, 0, 0, tzinfo=UTC))
    month = {
        "AND": [
            {"user_id": "alice"},
            {"created_at": {"gte": "2024-01-01T00:00:00Z"}},
            {"created_at": {"lt": "2024-02-01T00:00:00Z"}},
        ]
    }
    assert hit(month, january) and not hit(month, february)
    assert hit({"user_id": "alice", "created_at": {"lte": "2024-01-31"}}, january)
    assert not hit({"user_id": "alice", "created_at": {"gt": "2024-01-31"}}, january)
    assert hit({"user_id": "alice", "created_at": "2024-02-01"}, february)
    assert hit({"user_id": "alice", "created_at": {"gte": 1706745600}}, february)  # Unix time


def test_metadata_keywords_text_and_memory_ids() -> None:
    mail = memory(metadata={"source": "email", "type": "semantic"})
    assert hit({"user_id": "alice", "metadata": {"source": "email"}}, mail)
    assert not hit({"user_id": "alice", "metadata": {"source": {"ne": "email"}}}, mail)
    either = {"OR": [{"metadata": {"type": "episodic"}}, {"metadata": {"type": "semantic"}}]}
    assert hit({"AND": [{"user_id": "alice"}, either]}, mail)
    assert hit({"user_id": "alice", "keywords": {"icontains": "INVOICE"}}, mail)
    assert not hit({"user_id": "alice", "keywords": {"contains": "INVOICE"}}, mail)
    assert hit({"user_id": "alice", "memory_ids": ["m0", "m1"]}, mail)
    assert not hit({"user_id": "alice", "memory_ids": ["m2"]}, mail)


def test_only_a_filter_of_ids_alone_is_exact_in_the_database() -> None:
    ((ids_only, _),) = of({"user_id": "alice", "run_id": "r1"}).routes()
    assert ids_only.exact and ids_only.tags == ("user:alice", "run:r1")
    ((narrowed, _),) = of({"user_id": "alice", "keywords": {"contains": "x"}}).routes()
    assert not narrowed.exact


def test_an_unknown_field_is_refused_naming_where_it_stood() -> None:
    error = refusal({"AND": [{"user_id": "alice"}, {"colour": "red"}]})
    assert error.field == "filters.AND[1].colour"
    assert "unknown filter field" in error.reason


def test_an_unknown_or_unsupported_operator_is_refused() -> None:
    assert refusal({"user_id": {">=": "a"}}).field == "filters.user_id.>="
    error = refusal({"user_id": "alice", "categories": {"eq": "x"}})
    assert error.field == "filters.categories.eq" and "takes in, contains" in error.reason
    assert refusal({"user_id": "alice", "created_at": {"gte": "last week"}}).field == (
        "filters.created_at.gte"
    )


def test_every_alternative_must_name_an_id() -> None:
    error = refusal({"OR": [{"user_id": "alice"}, {"categories": {"in": ["x"]}}]})
    assert error.field == "filters" and "user_id, agent_id, app_id or run_id" in error.reason
    assert refusal({"NOT": {"user_id": "alice"}}).field == "filters"


def test_a_filter_too_wide_to_expand_is_refused() -> None:
    many = [{"user_id": {"in": [f"u{i}" for i in range(9)]}}] * 2
    assert "alternatives" in refusal({"AND": many}).reason


def test_values_never_become_query_text() -> None:
    """An id full of Cypher and Lucene syntax is only ever a value: it reaches the database as
    a tag parameter, as written."""
    hostile = "x' OR 1=1 //) MATCH (n) DETACH DELETE n"
    ((route, _),) = of({"user_id": hostile}).routes()
    assert route.anchor == f"user:{hostile}"
    assert ids_of([f"user:{hostile}"]) == EntityIds(user=hostile)
