"""Every way into `graph.Memory`, a folder per transport: `graphql/`, `rest/`, `mem0/`, `mcp/`,
`pages/`; `http/` is what they share, and `app.py` composes them into one Starlette app."""
