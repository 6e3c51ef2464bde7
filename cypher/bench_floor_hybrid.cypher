// bench/latency.py floor: every index call in one round trip, with the engine's limit: the
// turn's full-text, its passage's (unless $passage_lucene is empty) and the vector index.
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
  CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
  RETURN collect({id: node.id, score: score}) AS vector
}
RETURN fulltext, passage, vector
