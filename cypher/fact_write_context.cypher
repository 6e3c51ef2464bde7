// What the write pipeline needs to know before deciding, in one round trip: the live exact
// duplicate (if any), how many live facts the scope holds, counted up to $live_cap only (the
// near-duplicate check only asks whether an exact scan is small enough; counting every fact of
// a 1,000,000-fact scope took ~120 ms of each write), and the active facts in the same
// subject / predicate slot.
// With $lock_key set, the slot's lock is taken first (see cypher/write_lock.cypher): writers
// of one slot on any replica take turns, and each reads what the one before committed. In
// this query rather than its own, it costs no extra round trip.
CALL () {
  WITH $lock_key AS key
  WHERE key IS NOT NULL
  MERGE (l:WriteLock {scope: $scope, key: key})
  DELETE l
}
CALL () {
  OPTIONAL MATCH (d:Fact)
  WHERE d.scope = $scope AND d.live_hash = $hash
  RETURN d {.*, embedding: null} AS duplicate
}
CALL () {
  MATCH (c:Fact)
  WHERE c.scope = $scope AND c.status = 'active'
  WITH c LIMIT $live_cap
  RETURN count(c) AS live
}
CALL () {
  OPTIONAL MATCH (s:Fact)
  WHERE $subject_key IS NOT NULL AND $predicate_key IS NOT NULL
    AND s.scope = $scope AND s.subject_key = $subject_key AND s.predicate_key = $predicate_key
    AND s.status = 'active'
  WITH s ORDER BY s.valid_from DESC, s.recorded_at DESC
  RETURN collect(s {.*, embedding: null}) AS slot
}
RETURN duplicate, live, slot
