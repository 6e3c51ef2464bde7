// The timeline (see browse_timeline.cypher, keep in step) when $partition is set: a seek on
// RANGE INDEX (scope, partition, valid_from), read backwards in index order.
MATCH (f:Fact)
USING INDEX f:Fact(scope, partition, valid_from)  // pinned, as in browse_timeline.cypher
WHERE f.scope = $scope
  AND f.partition = $partition
  AND f.valid_from <= datetime($upper_valid)
  AND f.valid_from >= datetime($lower_valid)
  AND ($until IS NULL OR f.valid_from < $until)
  AND f.status = 'active'
  AND f.recorded_at <= $snapshot
  AND ($session_id IS NULL OR f.session_id = $session_id)
  AND coalesce(f.expires_at > $now, true)  // not past its TTL (no OR: keeps index order)
  AND NOT f.id IN $exclude_ids
  AND ($after_valid IS NULL
       OR f.valid_from < datetime($after_valid)
       OR (f.valid_from = datetime($after_valid)
           AND (f.recorded_at < datetime($after_recorded)
                OR (f.recorded_at = datetime($after_recorded) AND f.id < $after_id))))
RETURN f {.*, embedding: null} AS fact,
       toString(f.valid_from) AS valid_key,
       toString(f.recorded_at) AS recorded_key
ORDER BY f.scope DESC, f.partition DESC, f.valid_from DESC, f.recorded_at DESC, f.id DESC
LIMIT $limit
