"""Everything a scope holds, as plain values, so two scopes can be compared field by field.

Used by the import, export and resume specifications: a round trip or a resumed import is
correct when the snapshots are equal (after mapping ids, when facts moved to another scope).
The queries are test instruments, not product Cypher, so they live here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graph.storage.db import Database
from graph.storage.vector_shards import LABELS as SHARD_LABELS


@dataclass
class Snapshot:
    facts: dict[str, dict[str, Any]]
    mentions: list[tuple[str, str, str]]
    tagged: list[tuple[str, str]]
    supersedes: list[tuple[str, str, Any, Any]]
    entities: dict[str, dict[str, Any]]
    tags: list[str]
    audit_kinds: Counter[str]
    # Each fact's labels but its vector shard's (which follows from the scope): Fact, the
    # status label and :Standing.
    labels: dict[str, list[str]]
    derived: list[tuple[str, str]]

    def remapped(self, ids: Callable[[str], str], scope: str) -> Snapshot:
        """The same snapshot with fact ids mapped and every scope replaced by `scope`."""
        return Snapshot(
            facts={ids(k): {**v, "id": ids(k), "scope": scope} for k, v in self.facts.items()},
            mentions=sorted((ids(f), r, c) for f, r, c in self.mentions),
            tagged=sorted((ids(f), t) for f, t in self.tagged),
            supersedes=sorted(((ids(n), ids(o), r, a) for n, o, r, a in self.supersedes), key=_key),
            entities={k: {**v, "scope": scope} for k, v in self.entities.items()},
            tags=self.tags,
            audit_kinds=self.audit_kinds,
            labels={ids(k): v for k, v in self.labels.items()},
            derived=sorted((ids(n), ids(o)) for n, o in self.derived),
        )

    def without(self, *fields: str) -> Snapshot:
        """The snapshot minus fact properties that legitimately differ (e.g. updated_at)."""
        facts = {k: {p: v for p, v in f.items() if p not in fields} for k, f in self.facts.items()}
        return Snapshot(
            facts,
            self.mentions,
            self.tagged,
            self.supersedes,
            self.entities,
            self.tags,
            self.audit_kinds,
            self.labels,
            self.derived,
        )


def _key(item: tuple[Any, ...]) -> str:
    return repr(item)


def _rows(db: Database, query: str, scope: str) -> list[Any]:
    records, _, _ = db.driver.execute_query(query, scope=scope, database_=db.name)
    return list(records)


def snapshot(db: Database, scope: str) -> Snapshot:
    facts = {
        r["id"]: dict(r["props"])
        for r in _rows(
            db, "MATCH (f:Fact {scope: $scope}) RETURN f.id AS id, properties(f) AS props", scope
        )
    }
    mentions = sorted(
        (r["f"], r["role"], r["e"])
        for r in _rows(
            db,
            "MATCH (f:Fact {scope: $scope})-[m:MENTIONS]->(e:Entity) "
            "RETURN f.id AS f, m.role AS role, e.canonical AS e",
            scope,
        )
    )
    tagged = sorted(
        (r["f"], r["t"])
        for r in _rows(
            db,
            "MATCH (f:Fact {scope: $scope})-[:TAGGED]->(t:Tag) RETURN f.id AS f, t.name AS t",
            scope,
        )
    )
    supersedes = sorted(
        (
            (r["n"], r["o"], r["reason"], r["at"])
            for r in _rows(
                db,
                "MATCH (n:Fact {scope: $scope})-[s:SUPERSEDES]->(o:Fact) "
                "RETURN n.id AS n, o.id AS o, s.reason AS reason, s.at AS at",
                scope,
            )
        ),
        key=_key,
    )
    entities = {
        r["c"]: dict(r["props"])
        for r in _rows(
            db,
            "MATCH (e:Entity {scope: $scope}) RETURN e.canonical AS c, properties(e) AS props",
            scope,
        )
    }
    tags = sorted(
        r["t"] for r in _rows(db, "MATCH (t:Tag {scope: $scope}) RETURN t.name AS t", scope)
    )
    audit_kinds: Counter[str] = Counter(
        str(r["k"])
        for r in _rows(db, "MATCH (a:AuditEvent {scope: $scope}) RETURN a.kind AS k", scope)
    )
    labels = {
        r["id"]: sorted(set(r["labels"]) - set(SHARD_LABELS))
        for r in _rows(
            db, "MATCH (f:Fact {scope: $scope}) RETURN f.id AS id, labels(f) AS labels", scope
        )
    }
    derived = sorted(
        (r["n"], r["o"])
        for r in _rows(
            db,
            "MATCH (n:Fact {scope: $scope})-[:DERIVED_FROM]->(o:Fact) RETURN n.id AS n, o.id AS o",
            scope,
        )
    )
    return Snapshot(
        facts, mentions, tagged, supersedes, entities, tags, audit_kinds, labels, derived
    )
