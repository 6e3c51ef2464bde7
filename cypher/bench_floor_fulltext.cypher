// bench/latency.py floor: the full-text index call alone, with the engine's index, query
// string (scope clause included) and limit.
CALL db.index.fulltext.queryNodes('fact_fulltext_filtered', $lucene, {limit: $k}) YIELD node, score
RETURN node.id AS id, score
