// The vector index's internal id, which names its Lucene folder on a local server
// (graph/bulk/settle.py merges that folder's segments after a bulk load).
SHOW INDEXES YIELD id, name WHERE name = 'fact_embedding' RETURN id
