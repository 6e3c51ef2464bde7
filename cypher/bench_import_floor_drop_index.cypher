// bench/import_speed.py floor: its vector index goes with its nodes.
DROP INDEX bench_floor_embedding IF EXISTS
