// The distinct partitions holding active, unexpired facts whose partition starts with $prefix
// (all when null), sorted.
MATCH (f:Fact)
WHERE f.scope = $scope
  AND ($prefix IS NULL OR f.partition STARTS WITH $prefix)
  AND f.status = 'active'
  AND coalesce(f.expires_at > $now, true)
RETURN DISTINCT f.partition AS partition
ORDER BY partition
