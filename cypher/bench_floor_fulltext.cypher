// bench/latency.py floor: the full-text index calls alone, with the engine's indexes, query
// strings (scope clause included) and limit: the turn's own text and, unless $passage_lucene is
// empty, its passage (the default search asks both lists, graph/search/candidates.py).
CALL () {
  CALL db.index.fulltext.queryNodes('fact_fulltext_filtered', $lucene, {limit: $k}) YIELD node, score
  RETURN collect({id: node.id, score: score}) AS fulltext
}
CALL () {
  WITH $passage_lucene AS query WHERE query <> ''
  CALL db.index.fulltext.queryNodes('fact_passage_fulltext', query, {limit: $k}) YIELD node, score
  RETURN collect({id: node.id, score: score}) AS passage
}
RETURN fulltext, passage
