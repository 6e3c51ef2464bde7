// Active, unexpired facts whose partition starts with $prefix (a plain, case-sensitive string
// prefix; the whole scope when null), newest first. A key-value store that encodes its
// namespaces so that a prefix of the encoding is a prefix of the namespace (the LangGraph
// store: JSON arrays) lists a namespace and its children with it. Offset paging.
MATCH (f:Fact)
WHERE f.scope = $scope
  AND ($prefix IS NULL OR f.partition STARTS WITH $prefix)
  AND f.status = 'active'
  AND coalesce(f.expires_at > $now, true)
RETURN f {.*, embedding: null} AS fact
ORDER BY f.recorded_at DESC, f.id DESC
SKIP $offset
LIMIT $limit
