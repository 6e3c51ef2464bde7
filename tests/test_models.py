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
