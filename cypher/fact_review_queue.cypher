// Quarantined facts waiting for review, oldest first, keyset-paginated on (recorded_at, id),
// each with why and when it was held: its latest `quarantine` audit event (none for a fact
// imported without its audit).
MATCH (f:Fact)
WHERE f.scope = $scope AND f.status = 'quarantined'
  AND ($after_time IS NULL OR f.recorded_at > $after_time
       OR (f.recorded_at = $after_time AND f.id > $after_id))
WITH f
ORDER BY f.recorded_at, f.id
LIMIT $limit
OPTIONAL CALL (f) {
  MATCH (a:AuditEvent)
  WHERE a.scope = $scope AND a.fact_id = f.id AND a.kind = 'quarantine'
  RETURN a
  ORDER BY a.at DESC
  LIMIT 1
}
RETURN f {.*, embedding: null} AS fact, a.reason AS reason, a.at AS held_at
ORDER BY f.recorded_at, f.id
