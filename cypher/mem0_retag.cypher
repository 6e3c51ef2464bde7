// mem0's add of a text its owner already holds live, said with ids the memory lacks (another
// agent_id, app_id or run_id): the memory gains their tags instead of a second copy being
// stored, so a filter on the new id finds it. No row when the fact is no longer active.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope AND f.status = 'active'
WITH f, [x IN $tags WHERE NOT x IN f.tags] AS added
SET f.tags = f.tags + added,
    f.updated_at = CASE WHEN size(added) > 0 THEN $now ELSE f.updated_at END
WITH f, added
CALL (f, added) {
  UNWIND added AS tag
  MERGE (t:Tag {scope: $scope, name: tag})
  MERGE (f)-[:TAGGED]->(t)
}
RETURN f {.*, embedding: null} AS fact
