// The scope of a fact found by id among a mem0 project's scopes ($prefix: `<project>/`), since
// a mem0 memory id names no scope (graph/adapters/mem0/). A seek on the unique id; the prefix keeps
// another project's facts out of reach.
MATCH (f:Fact {id: $id})
WHERE f.scope STARTS WITH $prefix
RETURN f.scope AS scope
