"""Who may do what: roles, the auth mode of a server, and the scope/role check.

A caller presents an API key bound to a set of scopes (names, `*` for any, or `prefix/*` for
every scope under a prefix) and one role. Roles are ordered
reader < writer < admin; an operation names the least role it needs (purge, validate, reject
and import need admin). The answers are deliberately terse: a key used outside its scopes gets
the same 403 whether the other scope exists, is empty or is full, so nothing leaks about it.
"""

from __future__ import annotations

import enum
import ipaddress
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from graph.errors import FactgraphError

ANY_SCOPE = "*"
# A key scope ending in this grants every scope under a prefix: `acme/*` allows `acme/alice`
# and `acme/user:bob`, not `acme` itself (the mem0-compatible routes keep each user of a
# project in a scope of its own, resolvers/mem0/).
PREFIX_GRANT = "/*"


class Role(enum.IntEnum):
    READER = 1
    WRITER = 2
    ADMIN = 3

    @classmethod
    def parse(cls, value: str | Role) -> Role:
        if isinstance(value, Role):
            return value
        try:
            return cls[str(value).strip().upper()]
        except KeyError:
            raise ValueError(f"role must be reader, writer or admin, got {value!r}") from None

    @property
    def label(self) -> str:
        return self.name.lower()


class Unauthenticated(FactgraphError):
    """No key, or a key that is unknown or revoked: HTTP 401."""

    code = "UNAUTHENTICATED"
    http_status = 401


class Forbidden(FactgraphError):
    """A valid key used outside its scopes or above its role: HTTP 403."""

    code = "FORBIDDEN"
    http_status = 403


SCOPE_FORBIDDEN = "this API key may not use the requested scope"


@dataclass(frozen=True)
class ApiKey:
    """A stored key as the service sees it; the secret itself is never kept."""

    id: str
    scopes: tuple[str, ...]
    role: Role
    label: str | None
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None

    def allows_scope(self, scope: str) -> bool:
        return any(granted_covers(granted, scope) for granted in self.scopes)

    @property
    def only_scope(self) -> str | None:
        """The one scope this key names, when it names exactly one (not `*`, not a prefix):
        what a call that names no scope works on."""
        if len(self.scopes) != 1 or is_pattern(self.scopes[0]):
            return None
        return self.scopes[0]


def is_pattern(granted: str) -> bool:
    """`*` (any scope) or `prefix/*` (every scope under the prefix)."""
    return granted == ANY_SCOPE or granted.endswith(PREFIX_GRANT)


def granted_covers(granted: str, scope: str) -> bool:
    """Whether a key scope (a name, `*` or `prefix/*`) covers `scope`."""
    if granted in (ANY_SCOPE, scope):
        return True
    return granted.endswith(PREFIX_GRANT) and scope.startswith(granted[:-1])


def check(key: ApiKey, scope: str | None, role: Role | str) -> None:
    """Raise Forbidden unless `key` may act on `scope` (None: no scope involved) as `role`.

    The scope is checked first so a key outside it learns nothing, not even the role needed.
    """
    if scope is not None and not key.allows_scope(scope):
        raise Forbidden(SCOPE_FORBIDDEN)
    check_role(key.role, role)


def check_role(have: Role, role: Role | str) -> None:
    """Raise Forbidden, naming the role needed, unless `have` reaches `role`."""
    needed = Role.parse(role)
    if have < needed:
        raise Forbidden(f"this API key has role {have.label}; the operation needs {needed.label}")


@lru_cache(maxsize=1024)
def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1 (the only binds where auth may be off).

    Cached: every request without keys asks it of its client's address, and parsing one
    costs more than the rest of the access check.
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


AUTH_MODES = ("auto", "required", "off")


def auth_required(mode: str, host: str) -> bool:
    """Whether a server bound to `host` must demand API keys under FACTGRAPH_AUTH=`mode`.

    `auto` requires keys unless the bind address is loopback; `off` is refused for any other
    bind address, because then anyone who can reach the port could read every scope.
    """
    if mode not in AUTH_MODES:
        raise ValueError(f"FACTGRAPH_AUTH must be one of {', '.join(AUTH_MODES)}, got {mode!r}")
    if mode == "required":
        return True
    if not is_loopback(host):
        if mode == "off":
            raise ValueError(
                f"FACTGRAPH_AUTH=off is only allowed for a server bound to localhost, not "
                f"{host!r}: create a key with `factgraph keys create` instead"
            )
        return True
    return False
