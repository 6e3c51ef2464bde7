"""mem0's filter grammar, parsed into values: never into query text.

A filter is a JSON object: `AND` / `OR` (lists) and `NOT` (an object, or a list: none of them)
nest; other keys are fields, ANDed with their siblings. A field takes a bare value (equality,
or `"*"`: any value), a list (any of), or an object of operators (`eq ne in gt gte lt lte
contains icontains`, ANDed). The fields are mem0's: the ids `user_id agent_id app_id run_id`,
the times `created_at updated_at timestamp expiration_date`, `text`, `keywords`, `categories`,
`metadata` (`{"metadata": {"key": value-or-operators}}`) and `memory_ids`. Anything else is a
ValidationError naming where it stood (`filters.AND[1].colour`).

The result is a `Filter` in disjunctive normal form: alternatives (OR) of conjunctions of
`Atom`s. Each alternative must name an id (a value, a list or `"*"`), as mem0's API demands:
its route (`Route`) says which scopes and tags the database narrows to, and `matches` checks
every atom of it on each candidate. Times compare as intervals: a date (`2024-01-01`) is that
whole UTC day, a date-time or Unix time an instant; a missing value satisfies only `ne`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from graph.adapters.mem0.entities import (
    ID_FIELDS,
    KINDS,
    EntityIds,
    categories_of,
    checked_id,
    tag,
    tag_prefix,
)
from graph.adapters.mem0.held import Origin
from graph.errors import ValidationError
from graph.write.facts import Fact
from graph.write.validation import check_clean, parse_time

LOGICAL = ("AND", "OR", "NOT")
TIME_FIELDS = ("created_at", "updated_at", "timestamp", "expiration_date")
FIELDS = (*ID_FIELDS, *TIME_FIELDS, "text", "keywords", "categories", "metadata", "memory_ids")
OPERATORS = ("eq", "ne", "in", "gt", "gte", "lt", "lte", "contains", "icontains")
ANY = "*"
MAX_ALTERNATIVES = 64
MAX_DEPTH = 16
MAX_LIST = 1_000

# The operators each field takes (`any` is the "*" value; `in` on an id becomes alternatives).
_ALLOWED = {
    **{field: ("eq", "ne", "in") for field in ID_FIELDS},
    **{field: ("eq", "ne", "in", "gt", "gte", "lt", "lte") for field in TIME_FIELDS},
    "text": ("eq", "ne", "in", "contains", "icontains"),
    "keywords": ("contains", "icontains"),
    "categories": ("in", "contains"),
    "metadata": ("eq", "ne", "contains"),
    "memory_ids": ("in",),
}


@dataclass(frozen=True)
class Window:
    """A time value: [start, end) for a date, start == end for an instant."""

    start: datetime
    end: datetime

    @property
    def instant(self) -> bool:
        return self.start == self.end


@dataclass(frozen=True)
class Atom:
    """One comparison: `field` (`metadata.key` for metadata) `op` `value`, maybe negated."""

    field: str
    op: str
    value: Any
    key: str | None = None
    negated: bool = False

    def flipped(self) -> Atom:
        return replace(self, negated=not self.negated)


Conjunction = tuple[Atom, ...]


@dataclass(frozen=True)
class And:
    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    parts: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    part: Node


Node = And | Or | Not | Atom


@dataclass(frozen=True)
class Route:
    """How the database narrows one alternative before `matches` checks all of it.

    `owner`: the user it names, whose scope alone can hold its matches. `anchor`: a tag every
    match carries (else `anchor_prefix`: a tag prefix, for `"*"`). `tags`: every exact id tag
    a match carries. `exact`: nothing is left for `matches` beyond those tags.
    """

    owner: tuple[str, str] | None
    anchor: str | None
    anchor_prefix: str | None
    tags: tuple[str, ...]
    exact: bool


@dataclass(frozen=True)
class Filter:
    alternatives: tuple[Conjunction, ...]

    def routes(self) -> list[tuple[Route, Conjunction]]:
        return [(route(c), c) for c in self.alternatives]


def parse(raw: Any, *, where: str = "filters") -> Node:
    """The filter tree of a JSON value; ValidationError naming the offending key."""
    return _node(raw, where, 0)


def normalise(node: Node) -> Filter:
    """The disjunctive normal form of a filter tree (NOT pushed down to the atoms)."""
    alternatives = _dnf(node, negate=False)
    return Filter(tuple(tuple(c) for c in alternatives))


def all_of(parts: Sequence[Node]) -> Filter:
    """The normal form of parts ANDed (a request's `filters` and its other narrowing fields)."""
    return normalise(parts[0] if len(parts) == 1 else And(tuple(parts)))


def equalities(ids: EntityIds) -> Filter:
    """The filter `user_id = ... AND agent_id = ...` of the ids a memory carries."""
    atoms = tuple(Atom(f"{kind}_id", "eq", value) for kind, value in ids.items())
    return Filter((atoms,))


# -- parsing ---------------------------------------------------------------------------------


def _node(raw: Any, where: str, depth: int) -> Node:
    if depth > MAX_DEPTH:
        raise ValidationError(where, f"nested deeper than {MAX_DEPTH} levels")
    if not isinstance(raw, Mapping):
        raise ValidationError(where, "must be a JSON object")
    if not raw:
        raise ValidationError(where, "must not be empty")
    parts: list[Node] = []
    for key, value in raw.items():
        at = f"{where}.{key}" if where else str(key)
        if key in ("AND", "OR"):
            items = _list_of_objects(value, at)
            children = tuple(_node(item, f"{at}[{i}]", depth + 1) for i, item in enumerate(items))
            parts.append(And(children) if key == "AND" else Or(children))
        elif key == "NOT":
            if isinstance(value, list):
                items = _list_of_objects(value, at)
                children = tuple(
                    Not(_node(item, f"{at}[{i}]", depth + 1)) for i, item in enumerate(items)
                )
                parts.append(And(children))
            else:
                parts.append(Not(_node(value, at, depth + 1)))
        elif key in FIELDS:
            parts.append(_field(str(key), value, at))
        else:
            allowed = ", ".join((*LOGICAL, *FIELDS))
            raise ValidationError(at, f"unknown filter field; allowed: {allowed}")
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _list_of_objects(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise ValidationError(where, "must be a non-empty list of filter objects")
    if len(value) > MAX_LIST:
        raise ValidationError(where, f"more than {MAX_LIST} items")
    return value


def _field(field: str, value: Any, where: str) -> Node:
    if field == "metadata":
        return _metadata(value, where)
    if isinstance(value, Mapping):
        if not value:
            raise ValidationError(where, "must name at least one operator")
        atoms: list[Node] = []
        for op, operand in value.items():
            if op not in OPERATORS:
                raise ValidationError(
                    f"{where}.{op}", f"unknown operator; allowed: {', '.join(OPERATORS)}"
                )
            atoms.append(_comparison(field, str(op), operand, f"{where}.{op}"))
        return atoms[0] if len(atoms) == 1 else And(tuple(atoms))
    if isinstance(value, list):
        return _comparison(field, "in", value, where)
    if field == "keywords":
        return _comparison(field, "icontains", value, where)
    if field == "categories":
        return _comparison(field, "in", [value], where)
    return _comparison(field, "eq", value, where)


def _comparison(field: str, op: str, operand: Any, where: str) -> Node:
    if op not in _ALLOWED[field]:
        allowed = ", ".join(_ALLOWED[field])
        raise ValidationError(where, f"{field} does not take {op}; it takes {allowed}")
    if field in ID_FIELDS:
        return _id(field, op, operand, where)
    if op == "ne":  # a missing value is "not equal" too: the negation of eq says so
        negated = _comparison(field, "eq", operand, where)
        assert isinstance(negated, Atom)
        return negated.flipped()
    if field in TIME_FIELDS:
        if op == "in":
            items = _list(operand, where)
            return Atom(field, op, tuple(_window(v, f"{where}[{i}]") for i, v in enumerate(items)))
        return Atom(field, op, _window(operand, where))
    # Categories are tags and memory_ids are ids: identifiers, which hold no control character.
    string = _identifier if field in ("categories", "memory_ids") else _string
    if op == "in":
        items = _list(operand, where)
        return Atom(field, op, tuple(string(v, f"{where}[{i}]") for i, v in enumerate(items)))
    return Atom(field, op, string(operand, where))


def _id(field: str, op: str, operand: Any, where: str) -> Node:
    if op == "in":
        values = [_id_value(v, f"{where}[{i}]") for i, v in enumerate(_list(operand, where))]
        return Or(tuple(Atom(field, "eq", v) for v in values))
    atom = Atom(field, "eq", _id_value(operand, where))
    return atom.flipped() if op == "ne" else atom


def _id_value(value: Any, where: str) -> str:
    if value == ANY:
        return ANY
    return checked_id(where, value)


def _metadata(value: Any, where: str) -> Node:
    if not isinstance(value, Mapping) or not value:
        raise ValidationError(where, "must be an object of metadata keys and values")
    atoms: list[Node] = []
    for key, operand in value.items():
        check_clean(where, str(key))  # a metadata key: named by where it stands, not echoed
        at = f"{where}.{key}"
        if isinstance(operand, Mapping):
            if not operand:
                raise ValidationError(at, "must name at least one operator")
            for op, v in operand.items():
                if op not in _ALLOWED["metadata"]:
                    allowed = ", ".join(_ALLOWED["metadata"])
                    raise ValidationError(f"{at}.{op}", f"metadata takes {allowed}")
                atom = Atom("metadata", "eq" if op == "ne" else str(op), _scalar(v, at), str(key))
                atoms.append(atom.flipped() if op == "ne" else atom)
        else:
            atoms.append(Atom("metadata", "eq", _scalar(operand, at), str(key)))
    return atoms[0] if len(atoms) == 1 else And(tuple(atoms))


def _scalar(value: Any, where: str) -> Any:
    if isinstance(value, Mapping | list):
        raise ValidationError(where, "must be a string, number or boolean")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise ValidationError(where, "must be a non-empty list")
    if len(value) > MAX_LIST:
        raise ValidationError(where, f"more than {MAX_LIST} items")
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValidationError(where, "must be a non-empty string")
    return value


def _identifier(value: Any, where: str) -> str:
    return check_clean(where, _string(value, where))


def _window(value: Any, where: str) -> Window:
    """A date (the whole UTC day), an ISO date-time or a Unix time in seconds."""
    if isinstance(value, bool):
        raise ValidationError(where, "must be a date, an ISO-8601 date-time or a Unix time")
    if isinstance(value, int | float):
        if not math.isfinite(value) or abs(value) > 1e11:
            raise ValidationError(where, "is not a Unix time in seconds")
        moment = datetime.fromtimestamp(value, UTC)
        return Window(moment, moment)
    if isinstance(value, str) and len(value.strip()) == 10:
        try:
            day = date.fromisoformat(value.strip())
        except ValueError:
            raise ValidationError(where, f"{value!r} is not a date (YYYY-MM-DD)") from None
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        return Window(start, start + timedelta(days=1))
    parsed = parse_time(where, value)
    if parsed is None:
        raise ValidationError(where, "must be a date, an ISO-8601 date-time or a Unix time")
    return Window(parsed, parsed)


# -- normal form -----------------------------------------------------------------------------


def _dnf(node: Node, *, negate: bool) -> list[list[Atom]]:
    if isinstance(node, Atom):
        return [[node.flipped() if negate else node]]
    if isinstance(node, Not):
        return _dnf(node.part, negate=not negate)
    parts = [_dnf(part, negate=negate) for part in node.parts]
    conjunctive = isinstance(node, And) != negate  # De Morgan: NOT (a OR b) = NOT a AND NOT b
    if conjunctive:
        return _product(parts)
    alternatives = [c for part in parts for c in part]
    _check_size(len(alternatives))
    return alternatives


def _product(parts: Sequence[Sequence[Sequence[Atom]]]) -> list[list[Atom]]:
    size = math.prod(len(p) for p in parts)
    _check_size(size)
    return [[a for c in combo for a in c] for combo in itertools.product(*parts)]


def _check_size(size: int) -> None:
    if size > MAX_ALTERNATIVES:
        raise ValidationError(
            "filters", f"expands to {size} alternatives (at most {MAX_ALTERNATIVES}); simplify it"
        )


# -- routing and matching --------------------------------------------------------------------


def route(conjunction: Conjunction) -> Route:
    """Where the matches of one alternative can be; ValidationError if it names no id."""
    equal: dict[str, list[str]] = {kind: [] for kind in KINDS}
    wildcard: list[str] = []
    for atom in conjunction:
        kind = ID_FIELDS.get(atom.field)
        if kind is None or atom.negated:
            continue
        if atom.value == ANY:
            wildcard.append(kind)
        else:
            equal[kind].append(atom.value)
    tags = tuple(tag(kind, v) for kind in KINDS for v in equal[kind])
    users = equal["user"]
    owner = ("user", users[0]) if users else None
    if tags:
        anchor, prefix = tags[0], None
    elif wildcard:
        anchor, prefix = None, tag_prefix(min(wildcard, key=KINDS.index))
    else:
        raise ValidationError(
            "filters",
            "each alternative must name a user_id, agent_id, app_id or run_id "
            '(a value, a list or "*")',
        )
    exact = all(a.field in ID_FIELDS and not a.negated and a.value != ANY for a in conjunction)
    return Route(owner, anchor, prefix, tags, exact)


def needs_origin(conjunction: Conjunction) -> bool:
    """Whether checking the conjunction reads a memory's first version (its mem0 id or
    `created_at`), which costs a query."""
    return any(atom.field in ("created_at", "memory_ids") for atom in conjunction)


def matches(
    conjunction: Conjunction, fact: Fact, ids: EntityIds, origin: Origin | None = None
) -> bool:
    """Whether a memory meets every condition; `origin` is its chain's first version (mem0's
    id and `created_at`), the fact itself unless given."""
    first = origin or Origin.of(fact)
    return all(_holds(atom, fact, ids, first) != atom.negated for atom in conjunction)


def _holds(atom: Atom, fact: Fact, ids: EntityIds, origin: Origin) -> bool:
    field, op, value = atom.field, atom.op, atom.value
    kind = ID_FIELDS.get(field)
    if kind is not None:
        have = getattr(ids, kind)
        if value == ANY:
            return have is not None
        # A memory said again by another agent carries both agents' tags (ids shows the first).
        return have == value or tag(kind, value) in fact.tags
    if field in TIME_FIELDS:
        moment = origin.created_at if field == "created_at" else _moment(field, fact)
        if moment is None:
            return False
        if op == "in":
            return any(_compare("eq", moment, w) for w in value)
        return _compare(op, moment, value)
    if field in ("text", "keywords"):
        return _text(op, fact.text, value)
    if field == "categories":
        names = categories_of(fact.tags)
        if op == "in":
            return any(name in value for name in names)
        return any(value.casefold() in name.casefold() for name in names)
    if field == "metadata":
        assert atom.key is not None
        if atom.key not in fact.metadata:
            return False
        have = fact.metadata[atom.key]
        if op == "contains":
            return isinstance(have, str | list) and str(value) in have
        return bool(have == value)
    assert field == "memory_ids"
    return origin.id in value or fact.id in value


def _moment(field: str, fact: Fact) -> datetime | None:
    if field == "updated_at":
        return fact.updated_at or fact.recorded_at
    if field == "timestamp":
        return fact.valid_from
    return fact.expires_at


def _compare(op: str, moment: datetime, window: Window) -> bool:
    if op == "eq":
        return moment == window.start if window.instant else window.start <= moment < window.end
    if op == "gt":
        return moment > window.start if window.instant else moment >= window.end
    if op == "gte":
        return moment >= window.start
    if op == "lt":
        return moment < window.start
    assert op == "lte"
    return moment <= window.start if window.instant else moment < window.end


def _text(op: str, text: str, value: Any) -> bool:
    if op == "eq":
        return bool(text == value)
    if op == "in":
        return text in value
    if op == "contains":
        return bool(value in text)
    return bool(value.casefold() in text.casefold())
