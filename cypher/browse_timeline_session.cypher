// The timeline (see browse_timeline.cypher, keep in step) when $session_id is set: a seek on
// RANGE INDEX (scope, session_id, valid_from), read backwards in index order.
MATCH (f:Fact)
USING INDEX f:Fact(scope, session_id, valid_from)  // pinned, as in browse_timeline.cypher
WHERE f.scope = $scope
  AND f.session_id = $session_id
  AND f.valid_from <= datetime($upper_valid)
  AND f.valid_from >= datetime($lower_valid)
  AND ($until IS NULL OR f.valid_from < $until)
  AND f.status = 'active'
  AND f.recorded_at <= $snapshot
  AND ($partition IS NULL OR f.partition = $partition)
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
ORDER BY f.scope DESC, f.session_id DESC, f.valid_from DESC, f.recorded_at DESC, f.id DESC
LIMIT $limit
