// bench/segments.py: vectors written the way the importer writes them (32-bit, through the
// procedure), one transaction per call.
UNWIND $rows AS row
CREATE (n:BenchSegments {i: row.i})
WITH n, row
CALL db.create.setNodeVectorProperty(n, 'embedding', row.vector)
