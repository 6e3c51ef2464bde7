// The scopes of the facts that lack a vector shard label (the gap check found some): each scope's
// label is computed by graph/storage/vector_shards.py, then set by fact_shard_label_backfill.cypher.
MATCH (f:Fact)
WHERE none(l IN labels(f) WHERE l STARTS WITH 'VectorShard')
RETURN DISTINCT f.scope AS scope
