// The users, agents, apps and runs of a mem0 project ($prefix: `<project>/`) that hold live
// memories: one row per scope and id tag, with how many memories and their first and last
// times (graph/adapters/mem0/ sums a tag over the scopes the caller may read).
MATCH (t:Tag)
WHERE t.scope STARTS WITH $prefix
  AND any(kind IN ['user:', 'agent:', 'app:', 'run:'] WHERE t.name STARTS WITH kind)
MATCH (t)<-[:TAGGED]-(f:Fact)
WHERE f.status = 'active'
WITH t.scope AS scope, t.name AS name, count(f) AS memories,
     min(f.recorded_at) AS created_at, max(coalesce(f.updated_at, f.recorded_at)) AS updated_at
RETURN scope, name, memories, created_at, updated_at
ORDER BY name, scope
LIMIT $limit
