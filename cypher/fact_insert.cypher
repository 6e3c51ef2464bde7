// Insert a fact, or find the live fact with the same content in the scope (exact dedup).
// The (scope, live_hash) uniqueness constraint makes concurrent writers converge on one node:
// MERGE takes the constraint's lock, so the loser of a race matches the winner's fact.
// The status label (:Active, :Quarantined, ...) mirrors `status` for the Neo4j Browser's style,
// and :Standing marks a standing instruction or preference (graph/reading/standing.py);
// $shard_label (:VectorShard07, graph/storage/vector_shards.py) puts the vector into its scope's index.
MERGE (f:Fact {scope: $scope, live_hash: $props.content_hash})
  ON CREATE SET f += $props,
    f:$(CASE $props.status WHEN 'active' THEN 'Active' WHEN 'quarantined' THEN 'Quarantined'
        WHEN 'superseded' THEN 'Superseded' WHEN 'forgotten' THEN 'Forgotten' ELSE [] END),
    f:$(CASE WHEN $props.standing IS NULL THEN [] ELSE 'Standing' END),
    f:$($shard_label)
  ON MATCH SET f.strength = coalesce(f.strength, 1.0) + 1.0,
               f.access_count = coalesce(f.access_count, 0) + 1,
               f.last_accessed_at = $now
WITH f, f.id = $props.id AS created
// The vector as 32-bit floats: `SET` stores a list of numbers as 64-bit floats, twice the bytes
// for no gain (the vector index keeps 32-bit floats, and the model's output has no more
// precision). Half the store for the largest property of a fact, and exact scans over a
// scope's vectors (cypher/search_candidates.cypher, fact_neighbours_exact.cypher) read half.
CALL (f, created) {
  WITH f WHERE created AND $props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', $props.embedding)
}
CALL (f, created) {
  WITH f WHERE created
  UNWIND $entities AS ent
  MERGE (e:Entity {scope: $scope, canonical: ent.canonical})
    ON CREATE SET e.name = ent.name, e.aliases = [], e.type = ent.type,
                  e.lexical_text = toLower(ent.name), e.created_at = $now
  WITH f, e, ent
  SET e.aliases = CASE WHEN ent.name <> e.name AND NOT ent.name IN e.aliases
                       THEN e.aliases + ent.name ELSE e.aliases END,
      e.lexical_text = toLower(reduce(s = e.name, a IN e.aliases + [ent.name] | s + '\n' + a))
  MERGE (f)-[:MENTIONS {role: ent.role}]->(e)
}
// The terms its text mentions (graph/reading/, as cypher/reading_link.cypher links them): in
// this statement rather than a round trip of its own, which cost a remember ~17%.
CALL (f, created) {
  WITH f WHERE created
  UNWIND $terms AS term
  MERGE (t:Term {scope: $scope, canonical: term.canonical})
    ON CREATE SET t.name = term.name, t.created_at = $now
  CREATE (f)-[:MENTIONS {role: term.role, weight: term.weight}]->(t)
}
CALL (f, created) {
  WITH f WHERE created
  UNWIND $props.tags AS tag
  MERGE (t:Tag {scope: $scope, name: tag})
  MERGE (f)-[:TAGGED]->(t)
}
RETURN f AS fact, created
