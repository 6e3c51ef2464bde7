"""API keys kept in Neo4j as `(:ApiKey {id, hash, scopes, role, label, created_at, revoked_at})`.

A key reads `fgk_<id>_<secret>`: the id finds the node, the secret is checked against its
SHA-256 (secrets are 256 random bits, so a fast hash is enough; there is nothing to brute
force). The secret is printed once at creation and never stored. Verified keys are cached for a
few seconds so that an authenticated request costs no extra query; a revocation therefore takes
effect within `cache_seconds` on every server.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from graph.auth.roles import ANY_SCOPE, ApiKey, Role, Unauthenticated
from graph.write.validation import check_scope

if TYPE_CHECKING:  # the driver loads with the database, not with the key store's names
    from graph.storage.db import Database

PREFIX = "fgk"
_TOKEN = re.compile(rf"^{PREFIX}_([0-9a-f]{{16}})_([A-Za-z0-9_-]{{43}})$")
_CACHE_LIMIT = 10_000


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _to_datetime(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    native = value.to_native()  # neo4j.time.DateTime
    assert isinstance(native, datetime)
    return native


def _key(row: Mapping[str, Any]) -> ApiKey:
    created = _to_datetime(row["created_at"])
    assert created is not None
    return ApiKey(
        id=str(row["id"]),
        scopes=tuple(row["scopes"] or ()),
        role=Role.parse(str(row["role"])),
        label=row.get("label"),
        created_at=created,
        revoked_at=_to_datetime(row.get("revoked_at")),
    )


class KeyStore:
    """Create, list, revoke and verify API keys.

    Verified keys are cached per process for `cache_seconds` (a Neo4j read saved on almost
    every request). With several replicas, a key revoked or deleted through one of them is
    dropped from that replica's cache at once and refused by the others at most
    `cache_seconds` later: the keys themselves live only in Neo4j.
    """

    def __init__(self, db: Database, *, cache_seconds: float = 5.0) -> None:
        self.db = db
        self.cache_seconds = cache_seconds
        self._cache: dict[str, tuple[ApiKey, float]] = {}
        self._lock = threading.Lock()

    def create(
        self, scopes: Sequence[str], role: Role | str, label: str | None = None
    ) -> tuple[ApiKey, str]:
        """A new key and its secret token (the only time the token exists outside the caller)."""
        if not scopes:
            raise ValueError("a key needs at least one scope (--scope NAME, or --scope '*')")
        checked = [s if s == ANY_SCOPE else check_scope(s) for s in scopes]
        key_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        records = self.db.write(
            "apikey_create",
            {
                "id": key_id,
                "hash": _hash(secret),
                "scopes": sorted(set(checked)),
                "role": Role.parse(role).label,
                "label": label,
                "now": datetime.now(UTC),
            },
        )
        return _key(records[0]["key"]), f"{PREFIX}_{key_id}_{secret}"

    def list(self) -> list[ApiKey]:
        return [_key(r["key"]) for r in self.db.read("apikey_list")]

    def revoke(self, key_id: str) -> ApiKey | None:
        records = self.db.write("apikey_revoke", {"id": key_id, "now": datetime.now(UTC)})
        with self._lock:
            self._cache.clear()
        return _key(records[0]["key"]) if records else None

    def delete(self, key_id: str) -> bool:
        records = self.db.write("apikey_delete", {"id": key_id})
        with self._lock:
            self._cache.clear()
        return bool(records and records[0]["deleted"])

    def authenticate(self, token: str | None) -> ApiKey:
        """The live key behind `token`; Unauthenticated when missing, malformed, unknown or revoked.

        Raises DatabaseUnavailable (503) when the key cannot be checked because Neo4j is down.
        """
        if not token:
            raise Unauthenticated(
                "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key'"
            )
        match = _TOKEN.match(token.strip())
        if match is None:
            raise Unauthenticated("the API key is not valid")
        key_id, secret = match.groups()
        digest = _hash(secret)
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(digest)
        if cached is not None and cached[1] > now and cached[0].id == key_id:
            return cached[0]
        records = self.db.read("apikey_get", {"id": key_id})
        row = records[0]["key"] if records else None
        if row is None or not hmac.compare_digest(str(row["hash"]), digest):
            raise Unauthenticated("the API key is not valid")
        key = _key(row)
        if key.revoked:
            raise Unauthenticated("the API key was revoked")
        with self._lock:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[digest] = (key, now + self.cache_seconds)
        return key
