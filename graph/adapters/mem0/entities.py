"""mem0's entity ids (user_id, agent_id, app_id, run_id) as factgraph scopes, tags and sessions.

A mem0 memory belongs to its *owner*: the user when it names one, else the agent, else the
app, else the run (mem0's own extraction attributes each memory to one speaker the same way).
Each owner gets a scope of its own under the project's namespace, `<project>/user:alice`,
because a scope is what factgraph keeps apart: exact and near duplicates, contradictions and
extraction are decided within one scope, so two users who both say "I like pizza" keep a
memory each. Every id a memory carries, the owner's included, is also a tag (`user:alice`,
`agent:bot`, `app:shop`, `run:r1`): a filter on an id is a tag filter, which the search and
list queries answer from the `Tag` nodes. The run is also the fact's session, so the timeline,
the turn window and the consolidator's extraction see one conversation per run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graph.errors import ValidationError
from graph.write.validation import MAX_SCOPE_CHARS, MAX_TAG_CHARS, check_clean

# Owner precedence, and the order ids are reported in.
KINDS = ("user", "agent", "app", "run")
ID_FIELDS = {f"{kind}_id": kind for kind in KINDS}
SEPARATOR = "/"
# What a memory said by the assistant is tagged with (mem0 keeps the message's role).
ASSISTANT_TAG = "role:assistant"


@dataclass(frozen=True)
class EntityIds:
    """The mem0 ids a memory carries (None when absent)."""

    user: str | None = None
    agent: str | None = None
    app: str | None = None
    run: str | None = None

    def items(self) -> list[tuple[str, str]]:
        """(kind, id) of every id present, owner first."""
        return [(kind, value) for kind in KINDS if (value := getattr(self, kind)) is not None]

    @property
    def owner(self) -> tuple[str, str] | None:
        present = self.items()
        return present[0] if present else None

    def tags(self) -> list[str]:
        return [tag(kind, value) for kind, value in self.items()]


def tag(kind: str, value: str) -> str:
    return f"{kind}:{value}"


def tag_prefix(kind: str) -> str:
    return f"{kind}:"


def owner_scope(namespace: str, kind: str, value: str) -> str:
    """The scope holding the memories `kind:value` owns in a project."""
    return f"{namespace}{SEPARATOR}{tag(kind, value)}"


def namespace_prefix(namespace: str) -> str:
    """What every scope of a project starts with."""
    return f"{namespace}{SEPARATOR}"


def owner_of_scope(namespace: str, scope: str) -> tuple[str, str] | None:
    """(kind, id) of the owner a project's scope is named for; None for another scope."""
    prefix = namespace_prefix(namespace)
    if not scope.startswith(prefix):
        return None
    kind, sep, value = scope[len(prefix) :].partition(":")
    return (kind, value) if sep and kind in KINDS and value else None


def namespace_of_scope(scope: str) -> str | None:
    """The project whose owner's scope this is (`acme` for `acme/user:alice`); None for a
    scope not named for an owner."""
    found = [at for kind in KINDS if (at := scope.find(f"{SEPARATOR}{tag_prefix(kind)}")) > 0]
    if not found:
        return None
    namespace = scope[: min(found)]
    return namespace if owner_of_scope(namespace, scope) is not None else None


def ids_of(tags: Iterable[str], scope_owner: tuple[str, str] | None = None) -> EntityIds:
    """The ids a stored memory carries, read from its tags (and its scope's owner, for facts
    written there by other interfaces without the owner's tag)."""
    found: dict[str, str] = {}
    for name in tags:
        kind, sep, value = name.partition(":")
        if sep and kind in KINDS and value and kind not in found:
            found[kind] = value
    if scope_owner is not None:
        found.setdefault(*scope_owner)
    return EntityIds(**found)


def categories_of(tags: Iterable[str]) -> list[str]:
    """mem0's categories: the tags that are neither ids nor the speaker's role."""
    return [name for name in tags if not _is_id_tag(name) and name != ASSISTANT_TAG]


def role_tags(role: str) -> list[str]:
    """The tag that keeps who said a message: an assistant's carries one, a user's none."""
    return [ASSISTANT_TAG] if role == "assistant" else []


def role_of(tags: Iterable[str]) -> str:
    """Who said a memory's text (mem0's message role): `assistant` or `user`."""
    return "assistant" if ASSISTANT_TAG in tags else "user"


def _is_id_tag(name: str) -> bool:
    kind, sep, value = name.partition(":")
    return bool(sep) and kind in KINDS and bool(value)


def checked_id(field: str, value: Any) -> str:
    """An id as sent; ValidationError naming the field when it cannot be stored."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, "must be a non-empty string")
    kind = ID_FIELDS.get(field.rsplit(".", 1)[-1], "user")
    room = MAX_TAG_CHARS - len(tag_prefix(kind))
    if len(value) > room:
        raise ValidationError(field, f"longer than {room} characters")
    if value == "*":
        raise ValidationError(field, "'*' matches any id in a filter; a memory needs a real id")
    return check_clean(field, value)


def entity_ids(values: Mapping[str, Any], *, where: str = "") -> EntityIds:
    """EntityIds from a mapping holding `user_id` ... `run_id` (others ignored), checked."""
    found = {
        kind: checked_id(f"{where}{field}", values[field])
        for field, kind in ID_FIELDS.items()
        if values.get(field) is not None
    }
    return EntityIds(**found)


def check_namespace(namespace: str) -> str:
    """A project name leaves room for its owners' scope names."""
    if not namespace.strip():
        raise ValidationError("project_id", "must be a non-empty string")
    check_clean("project_id", namespace)
    longest = len(namespace_prefix(namespace)) + MAX_TAG_CHARS
    if longest > MAX_SCOPE_CHARS:
        room = MAX_SCOPE_CHARS - MAX_TAG_CHARS - len(SEPARATOR)
        raise ValidationError("project_id", f"longer than {room} characters")
    return namespace
