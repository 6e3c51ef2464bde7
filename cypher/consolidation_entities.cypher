// The known entities of a scope with their names and aliases, for the mentions enricher.
MATCH (e:Entity)
WHERE e.scope = $scope
RETURN e.canonical AS canonical, e.name AS name, coalesce(e.aliases, []) AS aliases
ORDER BY e.canonical
LIMIT $limit
