// bench/latency.py floor on Neo4j 2026.01+: the vector SEARCH alone, filtered in the index to
// the scope's active facts, with the engine's limit.
CYPHER 25
MATCH (f:Fact)
  SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vector
    WHERE f.scope = $scope AND f.status = 'active' LIMIT $k) SCORE AS score
RETURN f.id AS id, score
