"""Scripts that drive factgraph's MCP server with other SDKs' clients (TypeScript)."""
