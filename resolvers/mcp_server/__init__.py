"""The Model Context Protocol server (issue 19): the same `Memory` service, as MCP tools.

A transport like GraphQL and REST: `tools` (what each tool is for, its schema and role, one
`Memory` call each), `server` (the SDK server and its error handling), `http` (/mcp on the
Starlette app, behind API keys) and `stdio` (`factgraph mcp`). No Cypher, no ranking here.
"""
