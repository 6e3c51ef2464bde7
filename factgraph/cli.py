"""The operator's command line: `factgraph serve | neo4j | schema | ...`, with --help everywhere.

Each sub-command is a small function registered on argparse; long jobs show progress bars on
stderr. `serve` and `mcp` are the only commands that reach into `resolvers/` (lazily), because
they run the service's transports (the web application; the MCP server on stdio).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from graph.config import Settings
from graph.errors import FactgraphError
from graph.platform import cypher_shell
from graph.platform.neo4j_local import LocalNeo4j, Neo4jSetupError
from graph.platform.neo4j_start import ensure_neo4j, provide_cypher_shell

Handler = Callable[[argparse.Namespace, Settings], int]


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from graph.auth.roles import auth_required
    from graph.observability import otel
    from graph.observability.logs import setup_logging
    from resolvers.app import create_app, describe_auth

    settings = settings.with_overrides(
        host=args.host or settings.host, port=args.port or settings.port
    )
    required = auth_required(settings.auth, settings.host)  # refuses auth=off on a public bind
    ensure_neo4j(settings)
    base = f"http://{settings.host}:{settings.port}"
    print(f"factgraph: GraphQL (GraphiQL in a browser) at {base}/graphql", file=sys.stderr)
    print(f"factgraph: console (search, timeline, review) at {base}/console", file=sys.stderr)
    print(f"factgraph: {describe_auth(required, settings.host)}", file=sys.stderr)
    setup_logging(args.log_level, settings.log_format)
    otel.install_from_env(os.environ)  # OTEL_EXPORTER_OTLP_ENDPOINT etc., with factgraph[otel]
    uvicorn.run(create_app(settings=settings), **server_options(settings, args.log_level))
    return 0


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """MCP over stdio: answers at once, and starts or reuses the local Neo4j exactly as `serve`
    does in the background (resolvers/mcp/stdio.py)."""
    from graph.auth.roles import Role
    from graph.observability import otel
    from graph.observability.logs import setup_logging
    from resolvers.mcp.stdio import run_stdio
    from resolvers.mcp.toolsets import tool_set

    scope = args.scope or os.environ.get("FACTGRAPH_MCP_SCOPE", "")
    if not scope.strip():
        raise ValueError(
            "name the memory this agent uses: factgraph mcp --scope NAME (or FACTGRAPH_MCP_SCOPE)"
        )
    role = Role.parse(args.role or os.environ.get("FACTGRAPH_MCP_ROLE") or "writer")
    tools = tool_set(args.tools or os.environ.get("FACTGRAPH_MCP_TOOLS") or "factgraph")
    tools = tools.prefixed(args.namespace or os.environ.get("FACTGRAPH_MCP_NAMESPACE") or "")
    setup_logging(args.log_level, settings.log_format)  # log lines go to stderr
    otel.install_from_env(os.environ)
    print(
        f"factgraph: MCP on stdio, scope {scope!r}, role {role.label}, tools {tools.name}",
        file=sys.stderr,
    )
    run_stdio(settings, scope, role, tools)
    return 0


def server_options(settings: Settings, log_level: str) -> dict[str, Any]:
    """uvicorn's settings for `factgraph serve`.

    The idle keep-alive outlasts the clients' own (FACTGRAPH_KEEP_ALIVE): with uvicorn's 5 s,
    equal to httpx's, the server could close a connection as a request arrived on it, and that
    request got no answer at all (bench/results/load.md).
    """
    return {
        "host": settings.host,
        "port": settings.port,
        "log_level": log_level,
        "log_config": None,  # keep the JSON handlers set up by graph.observability.logs
        "access_log": False,  # resolvers.http.observe writes one structured line per request
        "timeout_keep_alive": settings.keep_alive,
        # A subscription's WebSocket message is bounded like a request body (uvicorn: 16 MiB).
        "ws_max_size": settings.max_body_bytes,
    }


def cmd_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "warm":
        return cmd_warm(settings)
    if not settings.uses_local_neo4j:
        print(f"NEO4J_URI is set ({settings.neo4j_uri}): no local server is managed.")
        return 0
    local = LocalNeo4j(settings)
    if args.action == "start":
        status = local.start()
        provide_cypher_shell(settings)
        print(f"Neo4j {status.version} running (pid {status.pid}) on {status.bolt_uri}")
        print(f"Browser: {status.browser_url}  (user {settings.neo4j_user})")
        print(f"Logs: {local.logs_dir}")
        return 0
    if args.action == "stop":
        print("stopped" if local.stop() else "not running")
        return 0
    status = local.status()
    print(
        json.dumps(
            {
                "running": status.running,
                "pid": status.pid,
                "bolt_uri": status.bolt_uri,
                "browser_url": status.browser_url,
                "version": status.version,
                "detail": status.detail,
                "home": str(local.home),
                "provisioned": local.is_provisioned(),
                "memory": local.configured_memory(),
                "memory_at_next_start": local.memory_plan().describe(),
            },
            indent=2,
        )
    )
    return 0 if status.version else 3


def cmd_warm(settings: Settings) -> int:
    """What `serve` does in the background at start, in the foreground
    (graph/platform/warmup.py)."""
    from graph.platform.warmup import warm_page_cache
    from graph.storage.db import Database

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        print(warm_page_cache(db).describe())
    finally:
        db.close()
    return 0


def cmd_schema(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "print":
        from resolvers.graphql.schema import print_schema

        sys.stdout.write(print_schema())
        return 0
    if args.action == "openapi":
        from resolvers.app import create_app
        from resolvers.http.openapi import document_text

        sys.stdout.write(document_text(create_app(settings=settings).routes))
        return 0
    from graph.platform.embedding import Embedder
    from graph.storage.db import Database
    from graph.storage.schema import apply_schema, index_states

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        if args.action == "apply":
            embedder = Embedder(settings)
            apply_schema(db, embedder.dimensions, embedder.id)
        for index in index_states(db):
            print(
                f"{index.name:32} {index.type:10} {index.state:10} {index.population_percent:.0f}%"
            )
    finally:
        db.close()
    return 0


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    parser = argparse.ArgumentParser(
        prog="factgraph",
        description="Long-term memory for AI agents, kept in Neo4j. Configuration comes from "
        "environment variables (see docs/configuration.md: NEO4J_URI, FACTGRAPH_HOME, ...).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    handlers: dict[str, Handler] = {}

    p = sub.add_parser("serve", help="run the GraphQL/REST service (starts local Neo4j if needed)")
    p.add_argument("--host", help="bind address (default FACTGRAPH_HOST or 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default FACTGRAPH_PORT or 8000)")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    handlers["serve"] = cmd_serve

    p = sub.add_parser(
        "mcp", help="serve the Model Context Protocol on stdio (starts local Neo4j if needed)"
    )
    p.add_argument("--scope", help="the memory (scope) the agent uses (or FACTGRAPH_MCP_SCOPE)")
    p.add_argument(
        "--role",
        choices=["reader", "writer", "admin"],
        help="what the agent may do (or FACTGRAPH_MCP_ROLE; default writer)",
    )
    p.add_argument(
        "--tools",
        choices=["factgraph", "memory", "neo4j-memory"],
        help="the tool set: factgraph's own, or the knowledge-graph tools of "
        "@modelcontextprotocol/server-memory (memory) or mcp-neo4j-memory (neo4j-memory); "
        "or FACTGRAPH_MCP_TOOLS; default factgraph",
    )
    p.add_argument(
        "--namespace",
        help="prefix the tool names with NAMESPACE- (as mcp-neo4j-memory's --namespace); "
        "or FACTGRAPH_MCP_NAMESPACE",
    )
    p.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    handlers["mcp"] = cmd_mcp

    p = sub.add_parser("neo4j", help="start, stop, inspect or warm the project's own Neo4j server")
    p.add_argument(
        "action",
        choices=["start", "stop", "status", "warm"],
        help="warm: read the facts into Neo4j's page cache, as `serve` does at start",
    )
    handlers["neo4j"] = cmd_neo4j

    p = sub.add_parser(
        "schema",
        help="apply or show constraints and indexes; print GraphQL SDL (print) or the REST "
        "API's OpenAPI document (openapi)",
    )
    p.add_argument("action", choices=["apply", "status", "print", "openapi"])
    handlers["schema"] = cmd_schema

    sub.add_parser(
        "cypher-shell",
        help="Neo4j's Cypher Shell connected to factgraph's server; every argument is passed "
        "through (try `factgraph cypher-shell --help`)",
        add_help=False,
    )

    for register in _EXTRA_COMMANDS:
        register(sub, handlers)
    return parser, handlers


Registrar = Callable[
    ["argparse._SubParsersAction[argparse.ArgumentParser]", dict[str, Handler]], None
]
_EXTRA_COMMANDS: list[Registrar] = []


def _register_bulk(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], handlers: dict[str, Handler]
) -> None:
    """import, export, embed, reembed, stats (graph/bulk/commands.py)."""
    from graph.bulk.commands import register

    register(sub, handlers)


_EXTRA_COMMANDS.append(_register_bulk)


def _register_keys(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], handlers: dict[str, Handler]
) -> None:
    """keys create | list | revoke (graph/auth/keys_cli.py)."""
    from graph.auth.keys_cli import register

    register(sub, handlers)


_EXTRA_COMMANDS.append(_register_keys)


def _register_consolidate(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], handlers: dict[str, Handler]
) -> None:
    """consolidate (graph/consolidation/cli.py)."""
    from graph.consolidation.cli import register

    register(sub, handlers)


_EXTRA_COMMANDS.append(_register_consolidate)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["cypher-shell"]:
        # Passed through untouched: argparse would claim cypher-shell's own options.
        return _guarded(lambda: cypher_shell.run(Settings.from_env(), arguments[1:]))
    parser, handlers = build_parser()
    args = parser.parse_args(arguments)
    return _guarded(lambda: handlers[args.command](args, Settings.from_env()))


def _refused_by_neo4j(exc: BaseException) -> bool:
    """A Neo4jError, told without importing the driver: a command that never loaded it (such
    as `factgraph mcp` before its first call) cannot have one, and the import costs 0.3-0.5 s
    of a start-up a desktop host waits for."""
    errors = sys.modules.get("neo4j.exceptions")
    return errors is not None and isinstance(exc, errors.Neo4jError)


def _guarded(command: Callable[[], int]) -> int:
    try:
        return command()
    except (Neo4jSetupError, FactgraphError, ValueError) as exc:
        print(f"factgraph: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if not _refused_by_neo4j(exc):
            raise
        # Refused by the server: its own words, not a traceback.
        print(
            f"factgraph: error: Neo4j refused it: {exc.message} ({exc.code})",  # type: ignore[attr-defined]
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print("factgraph: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
