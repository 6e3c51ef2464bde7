"""The tool sets an MCP connection may choose (`factgraph mcp --tools NAME`, /mcp/NAME).

`factgraph` is factgraph's own tools (the default); `memory` and `neo4j-memory` are the
knowledge-graph tools of `@modelcontextprotocol/server-memory` and `mcp-neo4j-memory`, so that a
host configured for either switches to factgraph by changing one line.
"""

from __future__ import annotations

from graph.errors import ValidationError
from resolvers.mcp.resources import FactgraphResources
from resolvers.mcp.tools import INSTRUCTIONS, TOOLS
from resolvers.mcp.toolset import ToolSet
from resolvers.mcp.toolsets.memory import MEMORY
from resolvers.mcp.toolsets.neo4j_memory import NEO4J_MEMORY

FACTGRAPH = ToolSet(
    name="factgraph",
    title="factgraph memory",
    tools=TOOLS,
    resources=FactgraphResources(),
    instructions=INSTRUCTIONS,
)
TOOL_SETS = {s.name: s for s in (FACTGRAPH, MEMORY, NEO4J_MEMORY)}


def tool_set(name: str) -> ToolSet:
    """The tool set called `name`; ValidationError naming `tools` for any other name."""
    found = TOOL_SETS.get(name.strip().lower())
    if found is None:
        raise ValidationError("tools", f"must be one of {', '.join(TOOL_SETS)}, got {name!r}")
    return found
