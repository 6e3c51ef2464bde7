// bench/segments.py: its vector index goes with its nodes.
DROP INDEX bench_segments_embedding IF EXISTS
