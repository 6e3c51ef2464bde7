// bench/latency.py floor: the vector index call alone, with the engine's limit.
CALL db.index.vector.queryNodes('fact_embedding', $k, $vector) YIELD node, score
RETURN node.id AS id, score
