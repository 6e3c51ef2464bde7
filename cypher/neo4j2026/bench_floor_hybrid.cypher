// bench/latency.py floor on Neo4j 2026.01+: every index call in one round trip, with the
// engine's limit: the turn's full-text, its passage's (unless $passage_lucene is empty) and
// the vector index (filtered in the index to the scope's active facts).
CYPHER 25
CALL () {
  CALL db.index.fulltext.queryNodes('fact_fulltext_filtered', $lucene, {limit: $k}) YIELD node, score
  RETURN collect({id: node.id, score: score}) AS fulltext
}
CALL () {
  WITH $passage_lucene AS query WHERE query <> ''
  CALL db.index.fulltext.queryNodes('fact_passage_fulltext', query, {limit: $k}) YIELD node, score
  RETURN collect({id: node.id, score: score}) AS passage
}
CALL () {
  MATCH (f:Fact)
    SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vector
      WHERE f.scope = $scope AND f.status = 'active' LIMIT $k) SCORE AS score
  RETURN collect({id: f.id, score: score}) AS vector
}
RETURN fulltext, passage, vector
