// One page of the timeline: active facts, newest first by valid time, then recorded time, then
// id. Keyset paging: $upper_valid / $after_* are the last row's exact values as strings
// (toString keeps the zone, so datetime() gives back the very value and ties compare equal).
// $snapshot bounds recorded_at by when paging began, so facts inserted meanwhile never shift a
// later page: nothing that existed at the first page is repeated or skipped.
MATCH (f:Fact)
WHERE f.scope = $scope
  AND f.valid_from <= datetime($upper_valid)
  AND ($since IS NULL OR f.valid_from >= $since)
  AND ($until IS NULL OR f.valid_from < $until)
  AND f.status = 'active'
  AND f.recorded_at <= $snapshot
  AND ($partition IS NULL OR f.partition = $partition)
  AND ($session_id IS NULL OR f.session_id = $session_id)
  AND (f.expires_at IS NULL OR f.expires_at > $now)
  AND NOT f.id IN $exclude_ids
  AND ($after_valid IS NULL
       OR f.valid_from < datetime($after_valid)
       OR (f.valid_from = datetime($after_valid)
           AND (f.recorded_at < datetime($after_recorded)
                OR (f.recorded_at = datetime($after_recorded) AND f.id < $after_id))))
RETURN f {.*, embedding: null} AS fact,
       toString(f.valid_from) AS valid_key,
       toString(f.recorded_at) AS recorded_key
ORDER BY f.valid_from DESC, f.recorded_at DESC, f.id DESC
LIMIT $limit
