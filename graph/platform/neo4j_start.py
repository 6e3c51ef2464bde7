"""Bringing up the project's own Neo4j for a command, shared by every command that needs it.

Kept apart from factgraph/cli.py so that the command modules registered there
(graph/bulk/commands.py,
graph/auth/keys_cli.py) can use it without importing the command line that imports them.
"""

from __future__ import annotations

import sys

from graph.config import Settings
from graph.platform import cypher_shell
from graph.platform.neo4j_local import LocalNeo4j, Neo4jSetupError


def ensure_neo4j(settings: Settings) -> None:
    """Start the project's own Neo4j unless NEO4J_URI names an existing server."""
    if not settings.uses_local_neo4j:
        return
    local = LocalNeo4j(settings)
    status = local.start()
    provide_cypher_shell(settings)
    print(
        f"factgraph: Neo4j {status.version} on {status.bolt_uri}, Browser at {status.browser_url}",
        file=sys.stderr,
    )
    advice = local.memory_advice()
    if advice is not None:
        print(f"factgraph: {advice}", file=sys.stderr)


def provide_cypher_shell(settings: Settings) -> None:
    """Fetch cypher-shell with the local server, so the documented batch commands just work.

    A failure here only costs `factgraph cypher-shell` (which retries and says why), never the
    server itself.
    """
    try:
        cypher_shell.CypherShell(settings).provision()
    except Neo4jSetupError as exc:
        print(f"factgraph: warning: cypher-shell not provisioned: {exc}", file=sys.stderr)
