// The $k facts of a scope nearest $vector by its vector index alone, with their scores (see
// cypher/fact_vector_nearest.cypher); Neo4j 2026.01+: filtered to the scope inside the index.
CYPHER 25
MATCH (f:Fact)
  SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vector WHERE f.scope = $scope LIMIT $k)
  SCORE AS score
RETURN f.id AS id, score
ORDER BY score DESC
