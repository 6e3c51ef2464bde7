// bench/segments.py: the vector index call search makes (k candidates), nothing else.
CALL db.index.vector.queryNodes('bench_segments_embedding', $k, $vector) YIELD node
RETURN count(node) AS n
