// bench/latency.py floor: the full-text index call alone, with the engine's limit.
CALL db.index.fulltext.queryNodes('fact_fulltext', $lucene, {limit: $k}) YIELD node, score
RETURN node.id AS id, score
