"""A node by id with references to its neighbours: entities, supersede chain, shared entities."""

from __future__ import annotations

from graph.browse import NeighbourRef
from graph.memory import Memory
from tests.browse_helpers import add


def _refs(memory: Memory, scope: str, node_id: str) -> set[tuple[str, str, str]]:
    node = memory.node(scope, node_id)
    assert node is not None
    return {(r.id, r.edge_type, r.relation) for r in node.neighbours}


def test_a_fact_lists_its_entities_and_facts_sharing_them(memory: Memory, scope: str) -> None:
    fact = add(memory, scope, "Ana visited Lisbon", subject="Ana", object="Lisbon")
    same_subject = add(memory, scope, "Ana likes sardines", subject="Ana", day=1)
    same_object = add(memory, scope, "Lisbon has trams", subject="Lisbon", day=2)
    add(memory, scope, "Bo likes chess", subject="Bo")
    node = memory.node(scope, fact)
    assert node is not None and node.type == "fact" and node.entity is None
    assert node.fact is not None and node.fact.text == "Ana visited Lisbon"
    assert set(node.neighbours) == {
        NeighbourRef("entity:ana", "MENTIONS", "subject"),
        NeighbourRef("entity:lisbon", "MENTIONS", "object"),
        NeighbourRef(same_object, "MENTIONS", "shares_entity", via="entity:lisbon"),
        NeighbourRef(same_subject, "MENTIONS", "shares_entity", via="entity:ana"),
    }


def test_supersede_links_go_both_ways(memory: Memory, scope: str) -> None:
    first = add(memory, scope, "The office is on floor 2")
    second = memory.supersede(scope, first, {"text": "The office is on floor 5"}).fact.id
    third = memory.supersede(scope, second, {"text": "The office is on floor 7"}).fact.id
    assert _refs(memory, scope, second) == {
        (first, "SUPERSEDES", "supersedes"),
        (third, "SUPERSEDES", "superseded_by"),
    }
    old = memory.node(scope, first)
    assert old is not None and old.fact is not None
    assert old.fact.status.value == "superseded"
    assert _refs(memory, scope, first) == {(second, "SUPERSEDES", "superseded_by")}


def test_archived_facts_are_not_offered_as_sharing_an_entity(memory: Memory, scope: str) -> None:
    fact = add(memory, scope, "Cy owns a boat", subject="Cy")
    gone = add(memory, scope, "Cy owns a kayak", subject="Cy", day=1)
    memory.forget(scope, gone)
    assert _refs(memory, scope, fact) == {("entity:cy", "MENTIONS", "subject")}


def test_sharing_neighbours_are_newest_first_up_to_the_limit(memory: Memory, scope: str) -> None:
    fact = add(memory, scope, "Di runs a bakery", subject="Di")
    others = [add(memory, scope, f"Di baked loaf {i}", subject="Di", day=i + 1) for i in range(5)]
    node = memory.node(scope, fact, limit=2)
    assert node is not None
    sharing = [r.id for r in node.neighbours if r.relation == "shares_entity"]
    assert sharing == others[::-1][:2]


def test_an_entity_lists_the_facts_that_mention_it(memory: Memory, scope: str) -> None:
    a = add(memory, scope, "Eve plays cello", subject="Eve", day=1)
    b = add(memory, scope, "Fay admires Eve", subject="Fay", object="Eve", day=2)
    node = memory.node(scope, "entity:eve")
    assert node is not None and node.type == "entity" and node.fact is None
    assert node.entity is not None and node.entity.name == "Eve"
    assert node.id == "entity:eve"
    assert list(node.neighbours) == [
        NeighbourRef(b, "MENTIONS", "object"),
        NeighbourRef(a, "MENTIONS", "subject"),
    ]


def test_neighbours_can_be_left_out(memory: Memory, scope: str) -> None:
    fact = add(memory, scope, "Gus repairs radios", subject="Gus")
    add(memory, scope, "Gus sells radios", subject="Gus", day=1)
    node = memory.node(scope, fact, neighbours=False)
    assert node is not None and node.neighbours == ()
    entity = memory.node(scope, "entity:gus", neighbours=False)
    assert entity is not None and entity.neighbours == ()


def test_unknown_forgotten_or_foreign_ids_give_none(
    memory: Memory, scope: str, other_scope: str
) -> None:
    foreign = add(memory, other_scope, "Hal lives elsewhere", subject="Hal")
    gone = add(memory, scope, "to be forgotten")
    memory.forget(scope, gone)
    for node_id in ("no-such-id", "", "entity:", "entity:nobody", foreign, "entity:hal", gone):
        assert memory.node(scope, node_id) is None, node_id
    assert memory.node("no-such-scope-" + scope, foreign) is None
