"""What one record of an import file means: a fact (with optional exported state) or an entity.

A fact record has the fields of `FactInput` (validated by
`graph.write.validation.fact_from_mapping`,
so a bad row is refused with the same field-named reasons as an API write), an optional `scope`,
and, in exports, the state the fact had: status, strength, both time axes' bookkeeping, entity
links in every role, supersede and derived-from links, the standing mark, the consolidation queue,
the vector and the derived texts. Only the fast path restores state; the
full pipeline decides state itself, so there such fields are refused rather than ignored.

Ids make imports idempotent. A record without an id gets one derived from its content and its
target scope, so the same row imported twice lands on the same fact. Fact ids are unique across
the whole database, so a record whose `scope` column differs from the import's target scope
(copying a tenant) gets its id, and the ids it supersedes, translated into the target scope.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph.bulk.codec import extra_from_json
from graph.errors import ValidationError
from graph.storage.store import fact_properties
from graph.write.facts import FactInput, FactStatus
from graph.write.validation import MAX_FIELD_CHARS, MAX_TEXT_CHARS, check_scope, fact_from_mapping
from graph.write.validation import parse_time as _parse_time

ID_NAMESPACE = uuid.UUID("6f1c2d1e-5b7a-4c3e-9a51-0f4c2b8e7d10")
INPUT_FIELDS = frozenset(f for f in FactInput.__dataclass_fields__)
STATE_FIELDS = frozenset(
    {
        "status",
        "strength",
        "access_count",
        "last_accessed_at",
        "expired_at",
        "updated_at",
        "embedder",
        "index_text",
        "lexical_text",
        "subject_key",
        "entities",
        "supersedes",
        "derived_from",
        "standing",
        "consolidation_queued_at",
        "properties",
    }
)
ENTITY_FIELDS = frozenset(
    {"canonical", "name", "aliases", "type", "lexical_text", "created_at", "scope", "properties"}
)
# The roles factgraph's own writers give a MENTIONS link: the write pipeline's subject and
# object, the consolidator's mention. An export may carry others (a later version's, or an
# operator's), which are restored as they are.
KNOWN_ROLES = ("subject", "object", "mention")
MAX_ROLE_CHARS = 64
_NUMBER_TYPES = frozenset({float, int})
_ENTITY_KNOWN = frozenset({"scope", "canonical", "name", "aliases", "type", "lexical_text"})


@functools.cache
def known_fact_properties() -> frozenset[str]:
    """The property names of a `(:Fact)` node, straight from the storage layer's map."""
    sample = fact_properties(
        FactInput(text="x"),
        fact_id="x",
        scope="x",
        content_hash="x",
        index_text="x",
        lexical_text="x",
        subject_key=None,
        embedding=None,
        embedder=None,
        status=FactStatus.ACTIVE,
        now=datetime.now(UTC),
    )
    return frozenset(sample)


@dataclass(frozen=True)
class EntityLink:
    role: str
    canonical: str
    name: str
    type: str | None = None


@dataclass(frozen=True)
class SupersedeLink:
    old_id: str
    reason: str | None
    at: datetime | None


@dataclass(frozen=True)
class FactRow:
    """A validated fact record, ready to be written into `scope` under `fact.id`."""

    line: int
    scope: str
    fact: FactInput
    status: FactStatus
    fingerprint: str
    state: dict[str, Any] = field(default_factory=dict)
    entities: tuple[EntityLink, ...] | None = None
    supersedes: tuple[SupersedeLink, ...] = ()
    vector: list[float] | None = None
    derived_from: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        assert self.fact.id is not None
        return self.fact.id


@dataclass(frozen=True)
class EntityRow:
    """An exported entity: restores the node's name, aliases and type exactly."""

    line: int
    scope: str
    canonical: str
    props: dict[str, Any]


Row = FactRow | EntityRow


def translate_id(target_scope: str, source_id: str) -> str:
    """The id a fact copied from another scope gets in `target_scope` (deterministic)."""
    return str(uuid.uuid5(ID_NAMESPACE, f"{target_scope}\x00{source_id}"))


def parse_record(
    data: Mapping[str, Any],
    *,
    line: int,
    target_scope: str | None,
    fast: bool,
    dimensions: int,
    extra_names: frozenset[str] = frozenset(),
    exported: bool = False,
) -> Row:
    """Validate one record; raises ValidationError naming the first bad field.

    `exported`: the file is a versioned export (graph/bulk/fileformat.py), whose facts carry
    their whole state: a standing mark or a place in the consolidation queue they do not carry
    is one they did not have, where a hand-written row gets them computed as a write would."""
    if "entity" in data:
        return _entity_row(data, line=line, target_scope=target_scope, fast=fast)
    values = dict(data)
    source_scope = values.pop("scope", None)
    if source_scope is not None:
        check_scope(source_scope)
    scope = target_scope or source_scope
    if scope is None:
        raise ValidationError("scope", "missing: give --scope or a scope column")
    translate = source_scope is not None and source_scope != scope
    state_raw = {k: values.pop(k) for k in list(values) if k in STATE_FIELDS}
    if not fast:
        for name in sorted(state_raw):
            if not (name == "status" and state_raw[name] in (None, "active")):
                raise ValidationError(
                    name, "is the state of an exported fact; only --fast restores it"
                )
    if fast and values.get("trusted") is False:
        raise ValidationError("trusted", "untrusted rows need the full pipeline (--pipeline)")
    unknown = sorted(set(values) - INPUT_FIELDS)
    if unknown:
        raise ValidationError(unknown[0], "unknown field")
    if values.get("text") is None:
        raise ValidationError("text", "missing")
    vector = _vector(values.pop("embedding", None), dimensions)
    inputs = {k: v for k, v in values.items() if v is not None}
    fact = fact_from_mapping(inputs)
    status = _status(state_raw.get("status"))
    fingerprint = _fingerprint(fact, status)
    if fact.id is None:
        fact_id = str(uuid.uuid5(ID_NAMESPACE, f"{scope}\x00{fingerprint}"))
    else:
        fact_id = translate_id(scope, fact.id) if translate else fact.id
    fact = dataclasses.replace(fact, id=fact_id)
    state = _state(state_raw, extra_names)
    if exported:
        for name in ("standing", "consolidation_queued_at"):
            state.setdefault(name, None)
    entities = _entities(state_raw.get("entities"))
    supersedes = tuple(
        dataclasses.replace(link, old_id=translate_id(scope, link.old_id)) if translate else link
        for link in _supersedes(state_raw.get("supersedes"))
    )
    derived_from = tuple(
        translate_id(scope, source) if translate else source
        for source in _ids("derived_from", state_raw.get("derived_from"))
    )
    return FactRow(
        line, scope, fact, status, fingerprint, state, entities, supersedes, vector, derived_from
    )


def _vector(raw: Any, dimensions: int) -> list[float] | None:
    """A supplied vector, checked at C speed: 100,000 rows of 384 numbers add up."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ValidationError("embedding", "must be a list of numbers")
    if len(raw) != dimensions:
        raise ValidationError(
            "embedding", f"has {len(raw)} numbers; the vector index holds {dimensions}"
        )
    try:
        total = math.fsum(raw)
    except (TypeError, ValueError, OverflowError):
        raise ValidationError("embedding", "must be a list of finite numbers") from None
    if not math.isfinite(total) or not set(map(type, raw)) <= _NUMBER_TYPES:  # no bools
        raise ValidationError("embedding", "must be a list of finite numbers")
    return list(map(float, raw))


def _fingerprint(fact: FactInput, status: FactStatus) -> str:
    """A digest of what the row says (not its vector), to recognise the same row again."""
    content = {
        "text": fact.text,
        "subject": fact.subject,
        "predicate": fact.predicate,
        "object": fact.object,
        "tags": list(fact.tags),
        "importance": fact.importance,
        "partition": fact.partition,
        "source": fact.source,
        "metadata": fact.metadata,
        "session_id": fact.session_id,
        "turn": fact.turn,
        "valid_from": _iso(fact.valid_from),
        "valid_to": _iso(fact.valid_to),
        "expires_at": _iso(fact.expires_at),
        "recorded_at": _iso(fact.recorded_at),
        "status": status.value,
    }
    encoded = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _status(raw: Any) -> FactStatus:
    if raw is None:
        return FactStatus.ACTIVE
    try:
        return FactStatus(raw)
    except ValueError:
        allowed = ", ".join(s.value for s in FactStatus)
        raise ValidationError("status", f"{raw!r} is not one of {allowed}") from None


def _string(name: str, raw: Any, limit: int = MAX_FIELD_CHARS) -> str:
    if not isinstance(raw, str):
        raise ValidationError(name, "must be a string")
    if len(raw) > limit:
        raise ValidationError(name, f"longer than {limit} characters")
    return raw


def _number(name: str, raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise ValidationError(name, "must be a finite number")
    if raw < 0:
        raise ValidationError(name, "must not be negative")
    return float(raw)


def _count(name: str, raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 0:
        raise ValidationError(name, "must be a non-negative integer")
    return raw


def _state(raw: Mapping[str, Any], extra_names: frozenset[str]) -> dict[str, Any]:
    state: dict[str, Any] = {}
    for name, value in raw.items():
        if value is None or name in {"status", "entities", "supersedes", "derived_from"}:
            continue
        if name == "strength":
            state[name] = _number(name, value)
        elif name == "access_count":
            state[name] = _count(name, value)
        elif name in {"last_accessed_at", "expired_at", "updated_at", "consolidation_queued_at"}:
            state[name] = _parse_time(name, value)
        elif name in {"index_text", "lexical_text"}:
            state[name] = _string(name, value, 4 * MAX_TEXT_CHARS)
        elif name in {"embedder", "subject_key", "standing"}:
            state[name] = _string(name, value)
        elif name == "properties":
            state[name] = _extras(value, extra_names)
    return state


def _extras(raw: Any, known: frozenset[str]) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise ValidationError("properties", "must be a JSON object")
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if not isinstance(name, str) or not name or name in known:
            raise ValidationError(f"properties.{name}", "is not an extra property name")
        out[name] = extra_from_json(name, value)
    return out


def _entities(raw: Any) -> tuple[EntityLink, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ValidationError("entities", "must be a list of {role, canonical, name, type}")
    links: list[EntityLink] = []
    for item in raw:
        if not isinstance(item, Mapping):
            raise ValidationError("entities", "each entity must be an object")
        role = _string("entities.role", item.get("role"), MAX_ROLE_CHARS)
        if not role.strip():
            raise ValidationError(
                "entities.role", f"must not be empty (factgraph writes {', '.join(KNOWN_ROLES)})"
            )
        canonical = _string("entities.canonical", item.get("canonical"))
        if not canonical.strip():
            raise ValidationError("entities.canonical", "must not be empty")
        name = _string("entities.name", item.get("name", canonical))
        kind = item.get("type")
        links.append(
            EntityLink(
                role, canonical, name, None if kind is None else _string("entities.type", kind)
            )
        )
    return tuple(links)


def _ids(name: str, raw: Any) -> list[str]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValidationError(name, "must be a list of fact ids")
    return [_string(name, item) for item in raw]


def _supersedes(raw: Any) -> list[SupersedeLink]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValidationError("supersedes", "must be a list of fact ids or {id, reason, at}")
    links: list[SupersedeLink] = []
    for item in raw:
        if isinstance(item, str):
            links.append(SupersedeLink(_string("supersedes", item), None, None))
            continue
        if not isinstance(item, Mapping):
            raise ValidationError("supersedes", "each entry must be an id or {id, reason, at}")
        old_id = _string("supersedes.id", item.get("id"))
        reason = item.get("reason")
        links.append(
            SupersedeLink(
                old_id,
                None if reason is None else _string("supersedes.reason", reason),
                _parse_time("supersedes.at", item.get("at")),
            )
        )
    return links


def _entity_row(
    data: Mapping[str, Any], *, line: int, target_scope: str | None, fast: bool
) -> EntityRow:
    if not fast:
        raise ValidationError(
            "entity", "entity records are exported state; only --fast restores them"
        )
    extra = sorted(set(data) - {"entity"})
    if extra:
        raise ValidationError(extra[0], "unknown field beside an entity record")
    raw = data["entity"]
    if not isinstance(raw, Mapping):
        raise ValidationError("entity", "must be a JSON object")
    unknown = sorted(set(raw) - ENTITY_FIELDS)
    if unknown:
        raise ValidationError(f"entity.{unknown[0]}", "unknown field")
    source_scope = raw.get("scope")
    if source_scope is not None:
        check_scope(source_scope)
    scope = target_scope or source_scope
    if scope is None:
        raise ValidationError("entity.scope", "missing: give --scope or a scope field")
    canonical = _string("entity.canonical", raw.get("canonical"))
    if not canonical.strip():
        raise ValidationError("entity.canonical", "must not be empty")
    name = _string("entity.name", raw.get("name", canonical))
    aliases = raw.get("aliases") or []
    if not isinstance(aliases, list):
        raise ValidationError("entity.aliases", "must be a list of strings")
    props: dict[str, Any] = {
        "name": name,
        "aliases": [_string("entity.aliases", a) for a in aliases],
        "type": None if raw.get("type") is None else _string("entity.type", raw["type"]),
        "lexical_text": _string(
            "entity.lexical_text", raw.get("lexical_text", name.lower()), 4 * MAX_TEXT_CHARS
        ),
    }
    if raw.get("created_at") is not None:
        props["created_at"] = _parse_time("entity.created_at", raw["created_at"])
    props.update(_extras(raw.get("properties") or {}, _ENTITY_KNOWN | {"created_at"}))
    return EntityRow(line, scope, canonical, props)
