// Fold a near duplicate into the existing fact: new tags linked, importance and metadata kept
// at their richest, strength up. The canonical text of the existing fact is not altered.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
SET f.tags = f.tags + $tags,
    f.importance = $importance,
    f.metadata = $metadata,
    f.strength = coalesce(f.strength, 1.0) + 1.0,
    f.access_count = coalesce(f.access_count, 0) + 1,
    f.last_accessed_at = $now,
    f.updated_at = $now
WITH f
CALL (f) {
  UNWIND $tags AS tag
  MERGE (t:Tag {scope: $scope, name: tag})
  MERGE (f)-[:TAGGED]->(t)
}
RETURN f {.*, embedding: null} AS fact
