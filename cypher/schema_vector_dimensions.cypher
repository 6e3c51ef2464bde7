// The dimensions of the vector indexes of facts and chunks (the shards, fact_embedding_NN and
// chunk_embedding_NN, and the single index of earlier versions, fact_embedding): more than one
// value, or another than the embedder's, means vectors of another model (graph/storage/schema.py).
SHOW INDEXES YIELD name, type, options
WHERE type = 'VECTOR' AND (name STARTS WITH 'fact_embedding' OR name STARTS WITH 'chunk_embedding')
RETURN DISTINCT options.indexConfig['vector.dimensions'] AS dimensions
