// The scopes of a mem0 project ($prefix: `<project>/`) holding live facts tagged $name (an id
// such as `agent:bot`): the only scopes where a filter on that id can find a match
// (graph/adapters/mem0/entities.py). Seeks the Tag key (scope, name) by the scope's prefix.
MATCH (t:Tag)
WHERE t.scope STARTS WITH $prefix AND t.name = $name
  AND EXISTS { MATCH (t)<-[:TAGGED]-(f:Fact) WHERE f.status = 'active' }
RETURN t.scope AS scope
ORDER BY scope
LIMIT $limit
