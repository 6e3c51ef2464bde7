// Neo4j 2026.01+: remember_many's near-duplicate candidates among the scope's active facts,
// filtered inside the vector index ($index and $fetch are the 5.26 file's, unused here).
CYPHER 25
UNWIND range(0, size($vectors) - 1) AS i
CALL (i) {
  MATCH (f:Fact)
    SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vectors[i]
      WHERE f.scope = $scope AND f.status = 'active' LIMIT $k) SCORE AS score
  WITH f, score
  ORDER BY score DESC, f.id
  RETURN collect({fact: f {.*, embedding: null}, score: score}) AS near
}
RETURN i, near
