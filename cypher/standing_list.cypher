// A scope's active standing statements (:Standing, graph/reading/standing.py), newest first, of
// one kind ($kind: 'instruction' or 'preference') or both ($kind null); found by the
// fact_standing index.
MATCH (f:Standing)
WHERE f.scope = $scope AND f.status = 'active' AND ($kind IS NULL OR f.standing = $kind)
  AND (f.expires_at IS NULL OR f.expires_at > $now)
WITH f ORDER BY f.recorded_at DESC, f.id LIMIT $limit
RETURN f {.id, .scope, .partition, .text, .index_text, .subject, .predicate, .object, .tags,
  .importance, .source, .metadata, .session_id, .turn, .content_hash, .embedder, .status,
  .strength, .access_count, .standing,
  valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
  recorded_at: toString(f.recorded_at), updated_at: toString(f.updated_at),
  expired_at: toString(f.expired_at), expires_at: toString(f.expires_at),
  last_accessed_at: toString(f.last_accessed_at)} AS fact
