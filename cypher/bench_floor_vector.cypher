// bench/latency.py floor: the vector index call alone (the scope's shard, $index), with the engine's limit.
CALL db.index.vector.queryNodes($index, $k, $vector) YIELD node, score
RETURN node.id AS id, score
