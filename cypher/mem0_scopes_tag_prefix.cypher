// The scopes of a mem0 project ($prefix: `<project>/`) holding live facts with a tag that
// starts with $name_prefix (`user:` for a filter `user_id: "*"`), as mem0_scopes_tag.cypher.
MATCH (t:Tag)
WHERE t.scope STARTS WITH $prefix AND t.name STARTS WITH $name_prefix
  AND EXISTS { MATCH (t)<-[:TAGGED]-(f:Fact) WHERE f.status = 'active' }
RETURN DISTINCT t.scope AS scope
ORDER BY scope
LIMIT $limit
