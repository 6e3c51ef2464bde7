// A mem0 list: the live facts of a project ($prefix: `<project>/`) tagged $name, carrying every
// tag of $tags too, newest first; past their expiry only with $show_expired. The filter's
// other conditions are checked on these rows in Python (graph/adapters/mem0/filters.py), never here.
MATCH (t:Tag)<-[:TAGGED]-(f:Fact)
WHERE t.scope STARTS WITH $prefix AND t.name = $name
  AND f.status = 'active'
  AND all(x IN $tags WHERE x IN f.tags)
  AND ($show_expired OR f.expires_at IS NULL OR f.expires_at > $now)
WITH DISTINCT f
ORDER BY f.recorded_at DESC, f.id DESC
LIMIT $limit
RETURN f {.*, embedding: null} AS fact
