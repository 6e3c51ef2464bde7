// bench/import_speed.py floor: Neo4j's own speed for the importer's rows, a bare CREATE of each
// fact's property map (vector included) under a label with nothing but a vector index.
UNWIND $rows AS row
CREATE (f:BenchFloorFact)
SET f = row.props
