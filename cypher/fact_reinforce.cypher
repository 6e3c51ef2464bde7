// A duplicate was written again: the existing fact grows stronger instead of being copied.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
SET f.strength = coalesce(f.strength, 1.0) + 1.0,
    f.access_count = coalesce(f.access_count, 0) + 1,
    f.last_accessed_at = $now
RETURN f {.*, embedding: null} AS fact
