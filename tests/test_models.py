"""The neomodel classes describe the graph the pipeline writes, and read it back."""

from __future__ import annotations

from typing import Any

from graph.memory import Memory
from graph.storage import models
from graph.storage.db import Database
from tests.conftest import lives_in


def test_a_supersede_chain_reads_back_through_the_object_mapper(
    memory: Memory, db: Database, scope: str
) -> None:
    old = memory.remember(scope, lives_in("Porto", who="Ana", tags=["home"]))
    new = memory.remember(scope, lives_in("Braga", who="Ana"))
    models.bind(db)
    node: Any = models.Fact.nodes.get(uid=new.id, scope=scope)
    assert node.status == "active"
    previous: Any
    (previous,) = node.supersedes.all()
    assert previous.uid == old.id and previous.status == "superseded"
    assert "Porto" in node.supersedes.relationship(previous).reason
    assert sorted(e.canonical for e in previous.entities.all()) == ["ana", "porto"]
    assert [t.name for t in previous.tagged.all()] == ["home"]
    assert previous.valid_to == new.valid_from
    # The status label picks the class: still a Fact, and says its status in the Browser too.
    assert isinstance(node, models.ActiveFact) and isinstance(previous, models.SupersededFact)
    assert isinstance(previous, models.Fact)


def test_a_long_facts_chunks_read_back_through_the_object_mapper(
    memory: Memory, db: Database, scope: str
) -> None:
    text = "\n\n".join(
        f"Step {i}: Ana checked the {thing} twice, wrote down what she found, and filed the notes "
        "in the shared folder so that the whole team could read them before the next meeting."
        for i, thing in enumerate(["boiler", "roof", "windows", "garden wall"] * 5)
    )
    fact = memory.remember(scope, {"text": text})
    models.bind(db)
    chunks: list[Any] = sorted(models.Chunk.nodes.filter(fact_id=fact.id), key=lambda c: c.ord)
    assert [c.ord for c in chunks] == list(range(1, len(chunks) + 1)) and chunks
    assert chunks[-1].end == len(text) and chunks[0].start > 0
    assert chunks[0].fact.single().uid == fact.id
    assert all(isinstance(c, models.Chunk) for c in chunks)
