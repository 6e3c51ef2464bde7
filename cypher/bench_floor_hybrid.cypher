// bench/latency.py floor: both index calls in one round trip, with the engine's limit.
CALL () {
  CALL db.index.fulltext.queryNodes('fact_fulltext_filtered', $lucene, {limit: $k}) YIELD node, score
  RETURN collect({id: node.id, score: score}) AS fulltext
}
CALL () {
  CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
  RETURN collect({id: node.id, score: score}) AS vector
}
RETURN fulltext, vector
