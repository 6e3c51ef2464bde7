// Every entity of the chosen scopes, written after the facts so an import ends with the exact
// entity nodes (name, aliases, type) whatever order their facts were linked in.
MATCH (e:Entity)
WHERE $scopes IS NULL OR e.scope IN $scopes
RETURN e {.*} AS props
ORDER BY e.scope, e.canonical
