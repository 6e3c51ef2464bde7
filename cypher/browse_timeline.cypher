// One page of the timeline: active facts, newest first by valid time, then recorded time, then
// id. Keyset paging: $upper_valid / $after_* are the last row's exact values as strings
// (toString keeps the zone, so datetime() gives back the very value and ties compare equal).
// $snapshot bounds recorded_at by when paging began, so facts inserted meanwhile never shift a
// later page: nothing that existed at the first page is repeated or skipped.
// The valid-time bounds make this a seek on RANGE INDEX (scope, valid_from), read backwards in
// index order (f.scope leads the ORDER BY so the planner sees that order), so a page costs
// about its own size rather than a sort of the scope. Variants for the partition and session
// filters: browse_timeline_partition.cypher, browse_timeline_session.cypher (keep in step).
MATCH (f:Fact)
USING INDEX f:Fact(scope, valid_from)  // pinned: the planner otherwise wavers with statistics
WHERE f.scope = $scope
  AND f.valid_from <= datetime($upper_valid)
  AND f.valid_from >= datetime($lower_valid)
  AND ($until IS NULL OR f.valid_from < $until)
  AND f.status = 'active'
  AND f.recorded_at <= $snapshot
  AND ($partition IS NULL OR f.partition = $partition)
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
ORDER BY f.scope DESC, f.valid_from DESC, f.recorded_at DESC, f.id DESC
LIMIT $limit
