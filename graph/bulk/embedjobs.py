"""Vector jobs: complete facts loaded by Cypher (`embed --missing`); re-embed after a model change.

A Cypher batch job (the templates in `cypher/import_template_*.cypher`) can write facts fast,
but cannot compute what needs Python: the content hash behind exact dedup, the contextual index
text, the vector and the entity links. `embed_missing` finds facts without a vector and gives
them all of it, so they end up equal to remembered facts; a loaded fact that duplicates a live
one is folded into it, as a repeated remember would be.

`reembed` follows a model change: a vector index built for another dimension is dropped and
rebuilt, and every fact whose vector came from another model is embedded again, in batches.
Done facts drop out of the query, so a killed run simply continues when started again.
"""

from __future__ import annotations

import functools
import json
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from neo4j import ManagedTransaction, Record
from tqdm import tqdm

from graph.bulk.checkpoint import Checkpoint
from graph.bulk.codec import native
from graph.bulk.spec import ID_NAMESPACE
from graph.config import Settings
from graph.errors import ValidationError
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.reading import read, terms
from graph.reading.standing import recognise
from graph.storage import store, vector_shards
from graph.storage.db import Database, run
from graph.storage.schema import apply_schema, vector_dimensions
from graph.storage.store import fact_properties
from graph.storage.wire import Vector
from graph.write import chunks, passages
from graph.write.facts import FactInput, FactStatus
from graph.write.indexing import content_hash, index_text, lexical_text
from graph.write.validation import parse_time, validate

_KEPT_STATE = ("strength", "access_count", "last_accessed_at", "expired_at")


@dataclass
class CompletionSummary:
    completed: int = 0
    deduplicated: int = 0
    passages: int = 0
    invalid: list[tuple[str, str, str]] = field(default_factory=list)

    def render(self) -> str:
        lines = [
            f"completed {self.completed} facts (vector, content hash, entity links)",
            f"folded {self.deduplicated} exact duplicates into the live fact",
            f"gave {self.passages} older turns their passage",
        ]
        if self.invalid:
            lines.append(f"left {len(self.invalid)} invalid facts untouched:")
            lines += [f"  {fact_id}: {name}: {reason}" for fact_id, name, reason in self.invalid]
        return "\n".join(lines)


@dataclass
class ReembedSummary:
    embedder: str
    old_dimensions: int | None
    new_dimensions: int
    rebuilt: bool = False
    reembedded: int = 0
    finished: bool = True
    missing: int = 0

    def render(self) -> str:
        lines = []
        if self.rebuilt:
            lines.append(
                "rebuilt the vector indexes (fact_embedding_*, chunk_embedding_*): "
                f"{self.old_dimensions} -> {self.new_dimensions} dimensions"
            )
        lines.append(f"re-embedded {self.reembedded} facts with {self.embedder}")
        if not self.finished:
            lines.append("stopped before the end: run `factgraph reembed` again to continue")
        if self.missing:
            lines.append(
                f"{self.missing} facts have no vector at all: run `factgraph embed --missing`"
            )
        return "\n".join(lines)


def fact_input_from_node(props: Mapping[str, Any]) -> tuple[FactInput, FactStatus]:
    """Read back a fact as written by a Cypher job, refusing what a remember would refuse."""
    raw_meta = props.get("metadata")
    if raw_meta is None:
        metadata: Any = {}
    elif isinstance(raw_meta, str):
        try:
            metadata = json.loads(raw_meta)
        except ValueError:
            raise ValidationError("metadata", "is not a JSON string") from None
    else:
        raise ValidationError("metadata", "must be stored as a JSON string")
    tags = props.get("tags")
    if tags is not None and not isinstance(tags, list):
        raise ValidationError("tags", "must be a list of strings")
    status_raw = props.get("status") or FactStatus.ACTIVE.value
    try:
        status = FactStatus(status_raw)
    except ValueError:
        raise ValidationError("status", f"{status_raw!r} is not a fact status") from None
    text = props.get("text")
    if text is None:
        raise ValidationError("text", "missing")
    fact = FactInput(
        text=text,
        subject=props.get("subject"),
        predicate=props.get("predicate"),
        object=props.get("object"),
        tags=tuple(tags or ()),
        importance=5.0 if props.get("importance") is None else props["importance"],
        partition=props.get("partition") or "default",
        source=props.get("source"),
        metadata=metadata,
        session_id=props.get("session_id"),
        turn=props.get("turn"),
        valid_from=_time("valid_from", props),
        valid_to=_time("valid_to", props),
        expires_at=_time("expires_at", props),
        id=props.get("id"),
        recorded_at=_time("recorded_at", props),
    )
    return validate(fact), status


def _time(name: str, props: Mapping[str, Any]) -> Any:
    return parse_time(name, native(props.get(name)))


def embed_missing(
    memory: Memory,
    *,
    scopes: list[str] | None = None,
    batch_size: int = 256,
    progress: bool = False,
    actor: str = "embed-missing",
) -> CompletionSummary:
    """Complete every fact without a vector; returns what was done and what was refused."""
    db = memory.db
    summary = CompletionSummary()
    skip: list[str] = []
    total = int(db.read("embed_missing_count", {"scopes": scopes})[0]["n"])
    with tqdm(
        total=total, unit=" facts", desc="embed --missing", file=sys.stderr, disable=not progress
    ) as bar:
        while True:
            records = db.read(
                "embed_missing_batch", {"scopes": scopes, "skip": skip, "limit": batch_size}
            )
            if not records:
                break
            done = _complete_batch(memory, records, summary, skip, actor)
            bar.update(done)
    # Turns written before passages existed, or by a job that only wrote their vectors.
    summary.passages = passages.refresh_missing(db, scopes)
    return summary


def _complete_batch(
    memory: Memory,
    records: list[Record],
    summary: CompletionSummary,
    skip: list[str],
    actor: str,
) -> int:
    """Complete one batch in one transaction; invalid facts go to `skip` and the summary."""
    now = memory.clock()
    rows: list[dict[str, Any]] = []
    texts: list[tuple[str, str]] = []
    for record in records:
        props = dict(record["props"])
        try:
            fact, status = fact_input_from_node(props)
        except ValidationError as exc:
            summary.invalid.append((str(props["id"]), exc.field, exc.reason))
            skip.append(str(props["id"]))
            continue
        row, text = _completion(memory, props, fact, status, now)
        rows.append(row)
        texts.append((text, fact.text))
    made: dict[str, dict[str, Any]] = {}
    for row, embedded in zip(rows, chunks.embed(memory.embedder, texts), strict=True):
        row["props"]["embedding"] = Vector(embedded.vector)
        # Read again now that the vector exists: the classifier reads it beside the patterns.
        kind = recognise(
            str(row["props"]["text"]),
            row["props"].get("subject"),
            vector=embedded.vector,
            embedder=memory.embedder.id,
        )
        row["props"]["standing"] = kind.value if kind is not None else None
        fact_id, scope = row["props"]["id"], row["props"]["scope"]
        made[fact_id] = chunks.row(fact_id, scope, embedded.chunks)
    if rows:

        def apply(tx: ManagedTransaction) -> list[Record]:
            outcomes = run(tx, "embed_missing_apply", rows=rows, now=now, actor=actor)
            completed = [made[o["id"]] for o in outcomes if o["outcome"] == "completed"]
            chunks.write(tx, completed)
            read_rows = {row["props"]["id"]: row["terms"] for row in rows}
            store.link_terms(
                tx,
                [
                    {"id": o["id"], "terms": read_rows[o["id"]]}
                    for o in outcomes
                    if o["outcome"] == "completed"
                ],
                now,
            )
            passages.refresh_rows(tx, [row["props"] for row in rows])
            return outcomes

        outcomes = memory.db.write_tx(apply, "embed_missing")
        for outcome in outcomes:
            if outcome["outcome"] == "dedup":
                summary.deduplicated += 1
            else:
                summary.completed += 1
    return len(records)


def _completion(
    memory: Memory, node: Mapping[str, Any], fact: FactInput, status: FactStatus, now: Any
) -> tuple[dict[str, Any], str]:
    """The parameters that turn a loaded node into a complete fact, and the text to embed."""
    entities = []
    for role, name in (("subject", fact.subject), ("object", fact.object)):
        if name:
            resolved = memory.resolver.resolve(name)
            if resolved is not None:
                entities.append((role, resolved))
    valid_from = fact.valid_from or fact.recorded_at or now
    text = index_text(fact, valid_from, memory.settings.contextual_indexing)
    subject_key = next((e.canonical for role, e in entities if role == "subject"), None)
    reading = read(fact.text, fact.subject)
    props = fact_properties(
        fact,
        fact_id=str(node["id"]),
        scope=str(node["scope"]),
        content_hash=content_hash(fact.text),
        index_text=text,
        lexical_text=lexical_text(fact, [e.name for _, e in entities]),
        subject_key=subject_key if fact.subject else None,
        embedding=[],
        embedder=memory.embedder.id,
        status=status,
        now=now,
        reading=reading,
    )
    props["valid_from"] = valid_from
    for key in _KEPT_STATE:
        if node.get(key) is not None:
            props[key] = node[key]
    row = {
        "props": props,
        "entities": [
            {"role": role, "canonical": e.canonical, "name": e.name, "type": e.type}
            for role, e in entities
        ],
        "audit_id": str(uuid.uuid5(ID_NAMESPACE, f"complete:{node['id']}")),
        "shard_label": vector_shards.label(str(props["scope"])),
        "terms": [term.row() for term in terms(reading, memory.resolver)],
    }
    return row, text


def reembed(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    *,
    scopes: list[str] | None = None,
    batch_size: int = 256,
    all_facts: bool = False,
    progress: bool = False,
    max_batches: int | None = None,
) -> ReembedSummary:
    """Bring every vector to `embedder`'s model; safe to interrupt and run again."""
    old = vector_dimensions(db)
    summary = ReembedSummary(embedder.id, old, embedder.dimensions)
    if old != embedder.dimensions:
        for record in db.read("vector_index_names"):
            db.write("vector_index_drop", {"name": record["name"]})
        apply_schema(db, embedder.dimensions, embedder.id)
        summary.rebuilt = old is not None
    checkpoint = Checkpoint.for_job(
        settings.home, "reembed", {"embedder": embedder.id, "scopes": scopes, "all": all_facts}
    )
    after = str(checkpoint.load().get("after", "")) if all_facts else ""
    params: dict[str, Any] = {"scopes": scopes, "all": all_facts, "embedder": embedder.id}
    total = int(db.read("reembed_count", {**params, "after": after})[0]["n"])
    batches = 0
    with tqdm(
        total=total, unit=" facts", desc="reembed", file=sys.stderr, disable=not progress
    ) as bar:
        while True:
            if max_batches is not None and batches >= max_batches:
                summary.finished = False
                break
            records = db.read("reembed_batch", {**params, "after": after, "limit": batch_size})
            if not records:
                break
            made = chunks.embed(embedder, [(str(r["text"]), str(r["body"] or "")) for r in records])
            rows = [
                {"id": r["id"], "embedding": Vector(m.vector)}
                for r, m in zip(records, made, strict=True)
            ]
            # Each fact's chunks are replaced with its vector: a text the new model reads
            # in other windows gets other chunks (none, when it now fits).
            tails = [
                chunks.row(str(r["id"]), str(r["scope"]), m.chunks)
                for r, m in zip(records, made, strict=True)
            ]

            def apply(
                tx: ManagedTransaction, rows: list[dict[str, Any]], tails: list[dict[str, Any]]
            ) -> None:
                run(tx, "reembed_apply", rows=rows, embedder=embedder.id)
                chunks.write(tx, tails, replace=True)

            db.write_tx(functools.partial(apply, rows=rows, tails=tails), "reembed")
            after = str(records[-1]["id"])
            if all_facts:
                checkpoint.save({"after": after})
            summary.reembedded += len(rows)
            batches += 1
            bar.update(len(rows))
    if summary.finished:
        checkpoint.clear()
    summary.missing = int(db.read("embed_missing_count", {"scopes": scopes})[0]["n"])
    return summary
