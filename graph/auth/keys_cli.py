"""`factgraph keys create | list | revoke`: manage the API keys the server accepts.

The secret is printed once, on stdout, by `create` (so it can be captured by a script); it is
never stored and cannot be shown again: a lost key is revoked and replaced.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from graph.auth.roles import Role
from graph.config import Settings

if TYPE_CHECKING:
    # The driver loads when a keys command runs, not when factgraph's parser is built (as
    # `factgraph mcp` builds it before answering tools/list).
    from graph.auth.apikeys import KeyStore
    from graph.storage.db import Database

Handler = Callable[[argparse.Namespace, Settings], int]


def _store(settings: Settings) -> tuple[Database, KeyStore]:
    from graph.auth.apikeys import KeyStore
    from graph.platform.embedding import Embedder
    from graph.platform.neo4j_start import ensure_neo4j
    from graph.storage.db import Database
    from graph.storage.schema import apply_schema

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        embedder = Embedder(settings)
        apply_schema(db, embedder.dimensions, embedder.id)
    except Exception:
        db.close()
        raise
    return db, KeyStore(db)


def cmd_keys(args: argparse.Namespace, settings: Settings) -> int:
    db, keys = _store(settings)
    try:
        if args.action == "create":
            key, token = keys.create(args.scope, Role.parse(args.role), args.label)
            print(token)
            print(
                f"key {key.id}: role {key.role.label}, scopes {', '.join(key.scopes)}. "
                "The secret above is shown only once; send it as 'Authorization: Bearer <key>'.",
                file=sys.stderr,
            )
            return 0
        if args.action == "list":
            rows = [
                {
                    "id": k.id,
                    "role": k.role.label,
                    "scopes": list(k.scopes),
                    "label": k.label,
                    "created_at": k.created_at.isoformat(),
                    "revoked_at": k.revoked_at.isoformat() if k.revoked_at else None,
                }
                for k in keys.list()
            ]
            print(json.dumps(rows, indent=2))
            return 0
        revoked = keys.revoke(args.id)
        if revoked is None:
            print(f"factgraph: error: no key {args.id!r}", file=sys.stderr)
            return 1
        print(f"revoked {revoked.id}")
        return 0
    finally:
        db.close()


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], handlers: dict[str, Handler]
) -> None:
    p = sub.add_parser("keys", help="create, list or revoke API keys (scopes and a role)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="create a key and print its secret once")
    create.add_argument(
        "--scope",
        action="append",
        required=True,
        help="a scope the key may use (repeat for several; '*' for every scope)",
    )
    create.add_argument(
        "--role",
        default="reader",
        choices=[r.label for r in Role],
        help="reader: read; writer: also remember/forget; admin: also purge, validate, "
        "reject, import (default reader)",
    )
    create.add_argument("--label", help="a note for `keys list` (who or what uses the key)")
    actions.add_parser("list", help="list keys (never their secrets) as JSON")
    revoke = actions.add_parser("revoke", help="revoke a key by id; servers stop accepting it")
    revoke.add_argument("id")
    handlers["keys"] = cmd_keys
