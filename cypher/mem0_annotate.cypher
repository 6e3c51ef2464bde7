// mem0's update of a memory's metadata, expiration date or timestamp alone, in place: the
// text, and so the fact, stays the same ($metadata is the JSON text, as graph/storage/store.py
// writes it; $valid_from, when given, is mem0's `timestamp`: when the memory holds from).
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope AND f.status = 'active'
SET f.metadata = CASE WHEN $set_metadata THEN $metadata ELSE f.metadata END,
    f.expires_at = CASE WHEN $set_expires THEN $expires_at ELSE f.expires_at END,
    f.valid_from = coalesce($valid_from, f.valid_from),
    f.updated_at = $now
// An expired fact the sweep hid (no live_hash) whose date is cleared or moved later takes part
// in exact deduplication again, unless a live fact with the same text was written meanwhile.
WITH f
OPTIONAL MATCH (other:Fact {scope: $scope, live_hash: f.content_hash})
WITH f, other
CALL (f, other) {
  WITH f, other
  WHERE f.live_hash IS NULL AND other IS NULL AND coalesce(f.expires_at > $now, true)
  SET f.live_hash = f.content_hash
}
RETURN f {.*, embedding: null} AS fact
