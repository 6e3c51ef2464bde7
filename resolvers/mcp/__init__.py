"""The Model Context Protocol server at /mcp and `factgraph mcp`: the same `Memory`, as MCP tools.

A transport like GraphQL and REST: `toolset` (what a tool and a tool set are), `tools` and
`resources` (factgraph's own tools: what each is for, its schema and role, one `Memory` call
each), `toolsets/` (the tool sets a connection chooses from, among them the knowledge-graph
tools of `@modelcontextprotocol/server-memory` and `mcp-neo4j-memory`, issue 48), `server` (the
SDK server and its error handling), `http` (/mcp on the Starlette app, behind API keys) and
`stdio` (`factgraph mcp`). No Cypher, no ranking here.
"""
