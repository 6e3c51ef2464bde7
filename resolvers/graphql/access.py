"""`access`: what the caller's key may do, so a frontend offers only the actions it permits.

The answer is advisory: every query and mutation still checks the key itself
(`resolvers.http.context.authorize`). It reads the key the request was authenticated with and
asks Neo4j nothing.
"""

from __future__ import annotations

import enum

import strawberry
from strawberry.types import Info

from graph.auth.roles import ANY_SCOPE, Role
from resolvers.http.context import Gate, authorize, principal_of

ROLES = (
    "Roles in order: a reader reads, a writer also writes, an admin also reviews (validate, "
    "reject, review queue, audit trail) and purges."
)


@strawberry.enum(description=ROLES)
class KeyRole(enum.Enum):
    READER = "reader"
    WRITER = "writer"
    ADMIN = "admin"


@strawberry.type(description="What the caller's API key may do (everything without keys).")
class Access:
    auth_required: bool = strawberry.field(
        description="False: the server runs without keys (loopback only) and allows all."
    )
    key_id: strawberry.ID | None
    key_label: str | None
    role: KeyRole
    scopes: list[str] = strawberry.field(description="The key's scopes; * is any scope.")
    scope: str | None = strawberry.field(description="The scope asked about, if any.")
    can_read: bool = strawberry.field(description="May read the scope asked about.")
    can_write: bool = strawberry.field(description="May remember, supersede, forget, pin.")
    can_review: bool = strawberry.field(
        description="May validate, reject, purge and read the review queue and audit trail."
    )


@strawberry.type
class AccessQuery:
    @strawberry.field(
        description="The caller's key: its role and scopes, and what it may do on `scope` "
        "(all false when the key may not use that scope). Without a scope: on the key's own."
    )
    def access(self, info: Info, scope: str | None = None) -> Access:
        request = info.context["request"]
        authorize(request, None, "reader")  # keys off: loopback callers only, as elsewhere
        gate: Gate = request.app.state.gate
        key = principal_of(request) if gate.required else None
        role = Role.ADMIN if key is None else key.role
        scopes = [ANY_SCOPE] if key is None else list(key.scopes)
        allowed = key is None or scope is None or key.allows_scope(scope)
        return Access(
            auth_required=gate.required,
            key_id=None if key is None else strawberry.ID(key.id),
            key_label=None if key is None else key.label,
            role=KeyRole(role.label),
            scopes=scopes,
            scope=scope,
            can_read=allowed,
            can_write=allowed and role >= Role.WRITER,
            can_review=allowed and role >= Role.ADMIN,
        )
