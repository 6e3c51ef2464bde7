// New vectors for a batch of facts, stamped with the embedder that made them.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.embedder = $embedder
// The vector as 32-bit floats (cypher/fact_insert.cypher); reembedding also converts a store
// written before vectors were kept that way.
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
RETURN count(f) AS n
