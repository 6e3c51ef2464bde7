// Neo4j 2026.01+: nearest neighbours among the scope's facts of the given statuses, filtered
// inside the vector index (one SEARCH per status: an in-index filter takes one exact value).
CYPHER 25
UNWIND $statuses AS status
CALL (status) {
  MATCH (f:Fact)
    SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vector
      WHERE f.scope = $scope AND f.status = status LIMIT $fetch) SCORE AS score
  RETURN f, score
}
WITH f, score
WHERE NOT f.id IN $exclude
RETURN f {.*, embedding: null} AS fact, score
ORDER BY score DESC, f.id
LIMIT $k
