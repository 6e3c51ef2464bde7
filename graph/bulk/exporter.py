"""`factgraph export`: JSON Lines that `factgraph import --fast` turns back into the same graph.

A header line first (graph/bulk/fileformat.py: the format and its version), then one line per
fact, oldest first, with everything the node holds (both time axes, status, strength, metadata,
the vector and the embedder that made it, the derived texts, the standing mark, its place in the
consolidation queue), its entity links in every role (subject, object, the consolidator's
`mention`), the facts it supersedes (with the edge's reason and time) and the facts it was
derived from; then one line per entity, so the entity nodes come back with their exact names
and aliases. The content hash and live_hash are not written: they follow from the text and
status and are recomputed on import.
Properties this version does not know are carried under `properties` rather than dropped.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from graph.bulk.autocommit import stream
from graph.bulk.codec import extra_to_json, native, time_to_json
from graph.bulk.fileformat import header_line
from graph.bulk.spec import known_fact_properties
from graph.errors import ValidationError
from graph.storage.db import Database
from graph.write.turn_fields import lifted

TIME_FIELDS = frozenset(
    {
        "valid_from",
        "valid_to",
        "expires_at",
        "recorded_at",
        "last_accessed_at",
        "expired_at",
        "updated_at",
        "consolidation_queued_at",
    }
)
FIELD_ORDER = (
    "id",
    "scope",
    "text",
    "subject",
    "predicate",
    "object",
    "tags",
    "importance",
    "partition",
    "source",
    "metadata",
    "session_id",
    "turn",
    "valid_from",
    "valid_to",
    "expires_at",
    "recorded_at",
    "status",
    "strength",
    "access_count",
    "last_accessed_at",
    "expired_at",
    "updated_at",
    "index_text",
    "lexical_text",
    "subject_key",
    "standing",
    "consolidation_queued_at",
    "embedder",
)
# Recomputed by whatever writes the fact (passage_text: graph/write/passages.py), never exported.
DERIVED = frozenset({"content_hash", "live_hash", "passage_text"})
_ENTITY_FIELDS = ("canonical", "name", "aliases", "type", "lexical_text")
_ROLE_ORDER = {"subject": 0, "object": 1}


@dataclass(frozen=True)
class ExportSummary:
    facts: int
    entities: int
    out: str

    def render(self) -> str:
        return f"exported {self.facts} facts and {self.entities} entities to {self.out}"


def fact_line(
    props: Mapping[str, Any],
    entities: list[Mapping[str, Any]],
    supersedes: list[Mapping[str, Any]],
    *,
    derived_from: list[str] | None = None,
    embeddings: bool = True,
) -> dict[str, Any]:
    """One exported fact: the node's properties as JSON, plus its links."""
    known = known_fact_properties()
    props = _with_turn_fields(props)
    out: dict[str, Any] = {}
    for name in FIELD_ORDER:
        value = props.get(name)
        if value is None:
            continue
        if name in TIME_FIELDS:
            out[name] = time_to_json(value)
        elif name == "metadata":
            out[name] = json.loads(value) if isinstance(value, str) else value
        elif name == "tags":
            out[name] = list(value)
        else:
            out[name] = value
    if entities:
        out["entities"] = sorted(
            ({k: e.get(k) for k in ("role", "canonical", "name", "type")} for e in entities),
            key=lambda e: (_ROLE_ORDER.get(str(e["role"]), 2), str(e["role"]), str(e["canonical"])),
        )
    if supersedes:
        out["supersedes"] = sorted(
            (
                {"id": s["id"], "reason": s.get("reason"), "at": time_to_json(s.get("at"))}
                for s in supersedes
            ),
            key=lambda s: str(s["id"]),
        )
    if derived_from:
        out["derived_from"] = sorted(derived_from)
    extras = {
        name: extra_to_json(name, value)
        for name, value in sorted(props.items())
        if name not in known and name not in DERIVED and value is not None
    }
    if extras:
        out["properties"] = extras
    vector = props.get("embedding")
    if embeddings and vector is not None:
        out["embedding"] = list(vector)
    elif not embeddings:
        out.pop("embedder", None)
    return out


def entity_line(props: Mapping[str, Any]) -> dict[str, Any]:
    entity: dict[str, Any] = {"scope": props["scope"]}
    for name in _ENTITY_FIELDS:
        value = props.get(name)
        if value is not None:
            entity[name] = list(value) if name == "aliases" else value
    if props.get("created_at") is not None:
        entity["created_at"] = time_to_json(props["created_at"])
    extras = {
        name: extra_to_json(name, native(value))
        for name, value in sorted(props.items())
        if name not in {"scope", "created_at", *_ENTITY_FIELDS} and value is not None
    }
    if extras:
        entity["properties"] = extras
    return {"entity": entity}


def export(
    db: Database,
    out: TextIO,
    *,
    scopes: list[str] | None = None,
    embeddings: bool = True,
    progress: bool = False,
) -> tuple[int, int]:
    """Write the header, the facts, then the entities, of `scopes` (all when None); returns
    the counts of facts and entities."""
    params = {"scopes": scopes or None}
    header = header_line(scopes=scopes or None, embeddings=embeddings, now=datetime.now(UTC))
    out.write(json.dumps(header, ensure_ascii=False, separators=(",", ":")) + "\n")
    total = int(db.read("export_count", params)[0]["n"])
    facts = entities = 0
    with tqdm(
        total=total,
        unit=" facts",
        desc="export",
        file=sys.stderr,
        disable=not progress,
        mininterval=0.5,
    ) as bar:
        for record in stream(db, "export_facts", params):
            line = fact_line(
                record["props"],
                record["entities"],
                record["supersedes"],
                derived_from=record["derived_from"],
                embeddings=embeddings,
            )
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
            facts += 1
            bar.update(1)
    for record in stream(db, "export_entities", params):
        line = entity_line(record["props"])
        out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        entities += 1
    return facts, entities


def export_to(
    db: Database,
    destination: Path | None,
    *,
    scopes: list[str] | None = None,
    embeddings: bool = True,
    progress: bool = False,
) -> ExportSummary:
    """Export to a file (written whole or not at all) or, with None, to standard output."""
    if destination is None:
        facts, entities = export(
            db, sys.stdout, scopes=scopes, embeddings=embeddings, progress=progress
        )
        sys.stdout.flush()
        return ExportSummary(facts, entities, "standard output")
    destination.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{destination.name}.", dir=destination.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            facts, entities = export(
                db, handle, scopes=scopes, embeddings=embeddings, progress=progress
            )
        os.replace(tmp_name, destination)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return ExportSummary(facts, entities, str(destination))


def _with_turn_fields(props: Mapping[str, Any]) -> Mapping[str, Any]:
    """A fact written without top-level session/turn (e.g. by a raw Cypher job) but carrying
    them in metadata is exported with them, as `remember` and `import` would have stored it."""
    if props.get("session_id") is not None and props.get("turn") is not None:
        return props
    raw = props.get("metadata")
    try:
        metadata = json.loads(raw) if isinstance(raw, str) else raw
        session_id, turn = lifted(props.get("session_id"), props.get("turn"), metadata)
    except (ValueError, ValidationError):
        return props
    if (session_id, turn) == (props.get("session_id"), props.get("turn")):
        return props
    return {**props, "session_id": session_id, "turn": turn}
