// Every vector index over facts: the shards (fact_embedding_NN) and, in a store written before
// shards, the single fact_embedding. `factgraph reembed` drops them all to rebuild them at the
// new model's dimension; graph/bulk/settle.py finds a shard's Lucene folder by its id.
SHOW INDEXES YIELD id, name, type
WHERE type = 'VECTOR' AND name STARTS WITH 'fact_embedding'
RETURN id, name
ORDER BY name
