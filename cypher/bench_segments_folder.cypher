// bench/segments.py: the index's id names its folder under schema/index/vector-2.0/.
SHOW VECTOR INDEXES YIELD id, name WHERE name = 'bench_segments_embedding'
RETURN id
