// A mem0 list by a tag prefix ($name_prefix: `user:` for `user_id: "*"`), otherwise as
// mem0_list_tag.cypher.
MATCH (t:Tag)<-[:TAGGED]-(f:Fact)
WHERE t.scope STARTS WITH $prefix AND t.name STARTS WITH $name_prefix
  AND f.status = 'active'
  AND all(x IN $tags WHERE x IN f.tags)
  AND ($show_expired OR f.expires_at IS NULL OR f.expires_at > $now)
WITH DISTINCT f
ORDER BY f.recorded_at DESC, f.id DESC
LIMIT $limit
RETURN f {.*, embedding: null} AS fact
