// Active, unexpired facts of one partition whose subject is one of $keys: a key-value view of a
// scope (the LangGraph store keys its items by subject). Newest first, so a caller holding two
// rows for one key (a race between two writers) takes the newest.
MATCH (f:Fact)
WHERE f.scope = $scope
  AND f.partition = $partition
  AND f.subject IN $keys
  AND f.status = 'active'
  AND coalesce(f.expires_at > $now, true)
RETURN f {.*, embedding: null} AS fact
ORDER BY f.recorded_at DESC, f.id DESC
