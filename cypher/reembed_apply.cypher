// New vectors for a batch of facts, stamped with the embedder that made them.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.embedding = row.embedding, f.embedder = $embedder
RETURN count(f) AS n
