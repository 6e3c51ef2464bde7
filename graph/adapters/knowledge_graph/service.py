"""The knowledge-graph tools' operations, over the memory service (issue 48).

Writes go through `Memory.remember_many` on the straight-through path (pipeline off: validation
and exact dedup only): the tools' callers expect every observation and relation kept as given,
where factgraph's near-duplicate merge would fold "Observation 2" into "Observation 1" and a
single-valued predicate would retire "Alice works_at Acme" once "Alice works_at Globex" came.
Deletes are `Memory.forget_many`: a forgotten fact leaves every read and keeps its history and
audit. Each call is one transaction: an entity's membership is marked, checked or removed in
the transaction that writes or forgets its facts (`within`), so nothing is half-saved.

Reads follow the reference server: open and search return the relations with an end among the
entities found. search_nodes finds what the reference finds (the query as a case-insensitive
substring of a name, a type or an observation) and also what any content word of the query
finds (folded like entity names, so "dogs" finds "has a dog"); factgraph's hybrid search over
the graph's facts then ranks the entities, best first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from graph.adapters.knowledge_graph.model import (
    PARTITION,
    Added,
    Entity,
    Graph,
    Relation,
    fold,
    observation_text,
    relation_text,
)
from graph.errors import Conflict, NotFound, ValidationError
from graph.search.lucene import terms
from graph.search.options import MAX_TOP_K, check_query
from graph.write.entities import normalise
from graph.write.facts import DecisionKind
from graph.write.validation import MAX_FIELD_CHARS, MAX_TEXT_CHARS, check_clean, check_scope

if TYPE_CHECKING:  # the driver and the memory load on first use, not with the tool sets
    from neo4j import ManagedTransaction, Record

    from graph.memory import Memory


def run(tx: ManagedTransaction, name: str, **params: Any) -> list[Record]:
    """graph.storage.db.run, imported on first use: the MCP tool sets import this module before
    `tools/list`, and the database module loads the driver."""
    from graph.storage.db import run as run_query

    return run_query(tx, name, **params)


Additions = Sequence[tuple[str, Sequence[str]]]
RelationKey = tuple[str, str, str]  # (source canonical, folded type, target canonical)


class KnowledgeGraph:
    """Entities, observations and relations of one scope's knowledge graph."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    # -- reads -----------------------------------------------------------------------------
    def read_graph(self, scope: str) -> Graph:
        check_scope(scope)
        return self._graph(scope, None)[0]

    def open_nodes(self, scope: str, names: Iterable[str]) -> Graph:
        """The named entities (unknown names are passed over) and the relations touching them."""
        check_scope(scope)
        return self._graph(scope, self._keys(names))[0]

    def search_nodes(self, scope: str, query: str) -> Graph:
        check_scope(scope)
        check_query(query)
        words = {normalise(word) for word in terms(query)} - {""}
        needles = sorted({query.lower(), *words})  # "" (the empty query) matches every entity
        params = {"scope": scope, "partition": PARTITION, "needles": needles}
        found = [r["canonical"] for r in self.memory.db.read("knowledge_search", params)]
        if not found:
            return Graph()
        graph, keys = self._graph(scope, found)
        rank = self._ranked(scope, query)
        order = sorted(range(len(keys)), key=lambda i: (rank.get(keys[i], len(rank)), i))
        return Graph([graph.entities[i] for i in order], graph.relations)

    # -- writes ----------------------------------------------------------------------------
    def create_entities(
        self, scope: str, entities: Sequence[Entity], *, actor: str, merge: bool = False
    ) -> list[Entity]:
        """The reference's create_entities: an entity already in the graph is skipped (its
        observations too) and the new ones are returned. With `merge` (mcp-neo4j-memory's
        documented behaviour) an existing entity takes the new type and gains the observations
        it lacks, and every entity given is returned."""
        check_scope(scope)
        wanted: dict[str, tuple[str, Entity]] = {}
        for i, entity in enumerate(entities):
            display, key = self._name(entity.name, f"entities.{i}.name")
            _text_field(entity.entity_type, f"entities.{i}.entityType", empty=True)
            kept = self._observations(display, entity.observations, f"entities.{i}.observations")
            if key in wanted:
                if not merge:
                    continue  # the first of two equal names is the one created
                kept = _merged(wanted[key][1].observations, kept)
            wanted[key] = (display, Entity(entity.name, entity.entity_type, tuple(kept)))
        members = self._members(scope, list(wanted))
        joining = [key for key in wanted if merge or key not in members]
        held = self._held_observations(scope, [k for k in joining if k in members])
        start = self.memory.clock()
        marks: list[dict[str, Any]] = []
        facts: list[dict[str, Any]] = []
        for i, key in enumerate(joining):
            display, entity = wanted[key]
            marks.append(
                {"canonical": key, "name": display, "type": entity.entity_type, "at": _at(start, i)}
            )
            for observation in entity.observations:
                if fold(observation) not in held.get(key, set()):
                    facts.append(_observation(display, observation, _at(start, len(facts))))

        def mark(tx: ManagedTransaction) -> None:
            run(
                tx,
                "knowledge_entities_mark",
                scope=scope,
                entities=marks,
                merge=merge,
                now=start,
            )

        if marks:
            self._write(scope, facts, "entities", actor, mark)
        if merge:
            return list(entities)
        return [wanted[key][1] for key in joining]

    def add_observations(self, scope: str, additions: Additions, *, actor: str) -> list[Added]:
        """The observations each entity did not hold yet are added and returned; an entity not
        in the graph is an error ("Entity with name X not found") and nothing is saved."""
        check_scope(scope)
        parsed: list[tuple[str, str, str, list[str]]] = []
        for i, (name, contents) in enumerate(additions):
            display, key = self._name(name, f"observations.{i}.entityName")
            kept = self._observations(display, contents, f"observations.{i}.contents")
            parsed.append((name, display, key, kept))
        keys = list(dict.fromkeys(key for _, _, key, _ in parsed))
        members = self._members(scope, keys)
        for name, _, key, _ in parsed:
            if key not in members:
                raise NotFound(f"Entity with name {name} not found")
        held = self._held_observations(scope, keys)
        facts: list[dict[str, Any]] = []
        owners: list[tuple[int, str]] = []
        start = self.memory.clock()
        for index, (_, display, key, kept) in enumerate(parsed):
            seen = held.setdefault(key, set())
            for observation in kept:
                if fold(observation) not in seen:
                    seen.add(fold(observation))
                    facts.append(_observation(display, observation, _at(start, len(facts))))
                    owners.append((index, observation))

        def check(tx: ManagedTransaction) -> None:
            present = {
                r["canonical"] for r in run(tx, "knowledge_members_locked", **_of(scope, keys))
            }
            for name, _, key, _ in parsed:
                if key not in present:  # deleted since it was read above
                    raise NotFound(f"Entity with name {name} not found")

        decisions = self._write(scope, facts, "observations", actor, check) if facts else []
        known = {owners[i] for i, d in enumerate(decisions) if d.kind is DecisionKind.DEDUP}
        added: dict[int, list[str]] = {}
        for index, observation in owners:
            if (index, observation) not in known:
                added.setdefault(index, []).append(observation)
        return [Added(name, added.get(i, [])) for i, (name, _, _, _) in enumerate(parsed)]

    def create_relations(
        self,
        scope: str,
        relations: Sequence[Relation],
        *,
        actor: str,
        between_members: bool = False,
    ) -> list[Relation]:
        """The reference's create_relations: relations already held are skipped and the new
        ones returned; an end need not be an entity of the graph yet. With `between_members`
        (mcp-neo4j-memory) a relation is made only when both ends are entities of the graph,
        and every relation given whose ends are is returned."""
        check_scope(scope)
        parsed: list[tuple[Relation, RelationKey, str, str]] = []
        for i, relation in enumerate(relations):
            source, source_key = self._name(relation.source, f"relations.{i}.from")
            target, target_key = self._name(relation.target, f"relations.{i}.to")
            kind = _text_field(relation.relation_type, f"relations.{i}.relationType")
            if len(relation_text(source, kind, target)) > MAX_TEXT_CHARS:
                raise ValidationError(f"relations.{i}", f"longer than {MAX_TEXT_CHARS} characters")
            parsed.append((relation, (source_key, fold(kind), target_key), source, target))
        ends = list(dict.fromkeys(k for _, key, _, _ in parsed for k in (key[0], key[2])))
        if between_members:
            members = self._members(scope, ends)
            parsed = [p for p in parsed if p[1][0] in members and p[1][2] in members]
        held = {
            (r["subject"], fold(r["predicate"] or ""), r["object"])
            for r in self._held(scope, [key[0] for _, key, _, _ in parsed])
            if r["object"] is not None
        }
        new: dict[RelationKey, tuple[Relation, str, str]] = {}
        for relation, key, source, target in parsed:
            if key not in held and key not in new:
                new[key] = (relation, source, target)
        start = self.memory.clock()
        facts = [
            {
                "text": relation_text(source, relation.relation_type, target),
                "subject": source,
                "predicate": relation.relation_type,
                "object": target,
                "partition": PARTITION,
                "valid_from": _at(start, i),
            }
            for i, (relation, source, target) in enumerate(new.values())
        ]
        needed = sorted({k for key in new for k in (key[0], key[2])})

        def check(tx: ManagedTransaction) -> None:
            if not between_members:
                return
            present = {
                r["canonical"] for r in run(tx, "knowledge_members_locked", **_of(scope, needed))
            }
            if set(needed) - present:
                raise Conflict("an entity of these relations was deleted meanwhile; call again")

        decisions = self._write(scope, facts, "relations", actor, check) if facts else []
        made = [
            key for key, d in zip(new, decisions, strict=True) if d.kind is not DecisionKind.DEDUP
        ]
        if between_members:
            return [relation for relation, _, _, _ in parsed]
        return [new[key][0] for key in made]

    def delete_entities(self, scope: str, names: Iterable[str], *, actor: str) -> None:
        """Each entity leaves the graph and its observations and every relation touching it
        are forgotten; names that are not entities are passed over."""
        check_scope(scope)
        keys = self._keys(names)

        def select(tx: ManagedTransaction) -> list[str]:
            if not keys:
                return []
            run(tx, "knowledge_entities_unmark", **_of(scope, keys), now=self.memory.clock())
            return [r["id"] for r in run(tx, "knowledge_facts", **_of(scope, keys))]

        self.memory.forget_many(
            scope, within=select, reason="delete_entities: its entity was deleted", actor=actor
        )

    def delete_observations(self, scope: str, deletions: Additions, *, actor: str) -> None:
        """The observations given are forgotten; unknown entities and observations are passed
        over (compared with case and spacing folded)."""
        check_scope(scope)
        wanted: dict[str, set[str]] = {}
        for name, observations in deletions:
            key = self._key(name)
            if key is not None:
                wanted.setdefault(key, set()).update(fold(o) for o in observations)

        def select(tx: ManagedTransaction) -> list[str]:
            rows = run(tx, "knowledge_facts", **_of(scope, list(wanted))) if wanted else []
            return [
                r["id"]
                for r in rows
                if r["object"] is None and fold(r["observation"]) in wanted.get(r["subject"], ())
            ]

        self.memory.forget_many(scope, within=select, reason="delete_observations", actor=actor)

    def delete_relations(self, scope: str, relations: Sequence[Relation], *, actor: str) -> None:
        """The relations given are forgotten (ends by name as entities fold them, the type with
        case folded); relations not held are passed over."""
        check_scope(scope)
        wanted: set[RelationKey] = set()
        for relation in relations:
            source, target = self._key(relation.source), self._key(relation.target)
            if source is not None and target is not None:
                wanted.add((source, fold(relation.relation_type), target))
        sources = sorted({key[0] for key in wanted})

        def select(tx: ManagedTransaction) -> list[str]:
            rows = run(tx, "knowledge_facts", **_of(scope, sources)) if sources else []
            return [
                r["id"]
                for r in rows
                if r["object"] is not None
                and (r["subject"], fold(r["predicate"] or ""), r["object"]) in wanted
            ]

        self.memory.forget_many(scope, within=select, reason="delete_relations", actor=actor)

    # -- helpers ---------------------------------------------------------------------------
    def _graph(self, scope: str, keys: list[str] | None) -> tuple[Graph, list[str]]:
        """The entities (all, or those of `keys` in the graph) with the relations touching
        them, and each entity's canonical key in the same order."""

        def work(tx: ManagedTransaction) -> tuple[Graph, list[str]]:
            rows = run(tx, "knowledge_graph_entities", **_of(scope, keys))
            entities = [Entity(r["name"], r["type"], tuple(r["observations"])) for r in rows]
            found = [r["canonical"] for r in rows]
            if keys is not None and not found:
                return Graph(entities, []), found
            links = run(
                tx, "knowledge_graph_relations", **_of(scope, None if keys is None else found)
            )
            relations = [Relation(r["source"], r["target"], r["type"]) for r in links]
            return Graph(entities, relations), found

        return self.memory.db.read_tx(work, "knowledge_graph")

    def _ranked(self, scope: str, query: str) -> dict[str, int]:
        """Each entity's place in factgraph's hybrid search over the graph's facts."""
        if not query.strip():
            return {}
        # Not counted as recall of these facts (`track_access`): the search only orders them.
        result = self.memory.search(
            scope, query, top_k=MAX_TOP_K, partitions=[PARTITION], track_access=False
        )
        rank: dict[str, int] = {}
        for hit in result.hits:
            for name in (hit.fact.subject, hit.fact.object):
                key = self._key(name) if name else None
                if key is not None:
                    rank.setdefault(key, len(rank))
        return rank

    def _write(
        self,
        scope: str,
        facts: list[dict[str, Any]],
        field: str,
        actor: str,
        within: Callable[[ManagedTransaction], None],
    ) -> list[Any]:
        """The facts and `within` in one transaction (only `within` when there are none)."""
        limit = self.memory.settings.batch_max
        if len(facts) > limit:
            raise ValidationError(
                field,
                f"{len(facts)} facts is over the batch limit of {limit} (FACTGRAPH_BATCH_MAX); "
                "split the call",
            )
        if not facts:
            self.memory.db.write_tx(within, "knowledge_graph")
            return []
        return self.memory.remember_many(scope, facts, actor=actor, pipeline=False, within=within)

    def _members(self, scope: str, keys: list[str]) -> set[str]:
        if not keys:
            return set()
        return {r["canonical"] for r in self.memory.db.read("knowledge_members", _of(scope, keys))}

    def _held(self, scope: str, keys: list[str]) -> list[Any]:
        keys = list(dict.fromkeys(keys))
        return self.memory.db.read("knowledge_facts", _of(scope, keys)) if keys else []

    def _held_observations(self, scope: str, keys: list[str]) -> dict[str, set[str]]:
        held: dict[str, set[str]] = {}
        for r in self._held(scope, keys):
            if r["object"] is None:
                held.setdefault(r["subject"], set()).add(fold(r["observation"]))
        return held

    def _observations(self, display: str, observations: Sequence[str], field: str) -> list[str]:
        """The observations checked, repeats (folded) dropped, first kept."""
        for j, observation in enumerate(observations):
            _text_field(observation, f"{field}.{j}", limit=MAX_TEXT_CHARS)
            if len(observation_text(display, observation)) > MAX_TEXT_CHARS:
                raise ValidationError(f"{field}.{j}", f"longer than {MAX_TEXT_CHARS} characters")
        return _merged((), observations)

    def _name(self, name: str, field: str) -> tuple[str, str]:
        """The entity's display name and canonical key, or a ValidationError naming `field`."""
        check_clean(field, _text_field(name, field))
        resolved = self.memory.resolver.resolve(name)
        if resolved is None:
            raise ValidationError(field, "must name something (a letter or a digit)")
        return resolved.name, resolved.canonical

    def _key(self, name: str) -> str | None:
        resolved = self.memory.resolver.resolve(name) if isinstance(name, str) else None
        return resolved.canonical if resolved is not None else None

    def _keys(self, names: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(k for k in (self._key(n) for n in names) if k is not None))


def _text_field(
    value: Any, field: str, *, empty: bool = False, limit: int = MAX_FIELD_CHARS
) -> str:
    if not isinstance(value, str):
        raise ValidationError(field, "must be a string")
    if not empty and not value.strip():
        raise ValidationError(field, "must not be empty")
    if len(value) > limit:
        raise ValidationError(field, f"longer than {limit} characters")
    if "\x00" in value:
        raise ValidationError(field, "contains a NUL character")
    return value


def _merged(first: Iterable[str], then: Iterable[str]) -> list[str]:
    """Both lists of observations, repeats (folded) dropped, first kept."""
    kept: dict[str, str] = {}
    for observation in (*first, *then):
        kept.setdefault(fold(observation), observation)
    return list(kept.values())


def _observation(display: str, observation: str, at: datetime) -> dict[str, Any]:
    return {
        "text": observation_text(display, observation),
        "subject": display,
        "partition": PARTITION,
        "valid_from": at,
    }


def _at(start: datetime, place: int) -> datetime:
    """A call's items one microsecond apart, so that they read back in the order given."""
    return start + timedelta(microseconds=place)


def _of(scope: str, keys: list[str] | None) -> dict[str, Any]:
    return {"scope": scope, "partition": PARTITION, "canonicals": keys}
