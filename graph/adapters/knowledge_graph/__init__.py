"""The knowledge-graph memory model (entities, observations, relations) kept as factgraph facts.

What `@modelcontextprotocol/server-memory` and `mcp-neo4j-memory` store, with factgraph's history:
`model` says how each piece is held, `service` is the `KnowledgeGraph` the MCP tool sets call.
"""
