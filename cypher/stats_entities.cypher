// Entities and tags per scope, for `factgraph stats`.
CALL () {
  MATCH (e:Entity) WHERE $scopes IS NULL OR e.scope IN $scopes
  RETURN e.scope AS scope, 'entities' AS kind, count(e) AS n
  UNION ALL
  MATCH (t:Tag) WHERE $scopes IS NULL OR t.scope IN $scopes
  RETURN t.scope AS scope, 'tags' AS kind, count(t) AS n
}
RETURN scope, kind, n
ORDER BY scope, kind
