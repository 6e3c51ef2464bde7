// Quarantined facts waiting for review, oldest first, keyset-paginated on (recorded_at, id).
MATCH (f:Fact)
WHERE f.scope = $scope AND f.status = 'quarantined'
  AND ($after_time IS NULL OR f.recorded_at > $after_time
       OR (f.recorded_at = $after_time AND f.id > $after_id))
RETURN f {.*, embedding: null} AS fact
ORDER BY f.recorded_at, f.id
LIMIT $limit
