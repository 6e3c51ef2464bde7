// Every vector index over facts and their chunks: the shards (fact_embedding_NN,
// chunk_embedding_NN; on 2026.x the filtered fact_embedding_filtered, chunk_embedding_filtered)
// and, in a store written before shards, the single fact_embedding. `factgraph reembed` drops
// them all to rebuild them at the new model's dimension; graph/bulk/settle.py finds a shard's
// Lucene folder by its id.
SHOW INDEXES YIELD id, name, type
WHERE type = 'VECTOR' AND (name STARTS WITH 'fact_embedding' OR name STARTS WITH 'chunk_embedding')
RETURN id, name
ORDER BY name
