// Neo4j 2026.01+: one vector index over every fact, declaring the scope and the status as
// filter properties, so that the SEARCH clause keeps a scope's active facts inside the index
// (cypher/neo4j2026/search_candidates.cypher) instead of ranking the whole store. This replaces
// the sixteen shard indexes of 5.26 (cypher/schema/003_vector.cypher, graph/storage/vector_shards.py),
// dropped here: a store upgraded from 5.26 keeps its facts' shard labels, which cost nothing.
// $dimensions comes from the embedder; a mismatch stops start-up (graph/storage/schema.py).
CYPHER 25 CREATE VECTOR INDEX fact_embedding_filtered IF NOT EXISTS
  FOR (f:Fact) ON f.embedding WITH [f.scope, f.status]
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
DROP INDEX fact_embedding_00 IF EXISTS;
DROP INDEX fact_embedding_01 IF EXISTS;
DROP INDEX fact_embedding_02 IF EXISTS;
DROP INDEX fact_embedding_03 IF EXISTS;
DROP INDEX fact_embedding_04 IF EXISTS;
DROP INDEX fact_embedding_05 IF EXISTS;
DROP INDEX fact_embedding_06 IF EXISTS;
DROP INDEX fact_embedding_07 IF EXISTS;
DROP INDEX fact_embedding_08 IF EXISTS;
DROP INDEX fact_embedding_09 IF EXISTS;
DROP INDEX fact_embedding_10 IF EXISTS;
DROP INDEX fact_embedding_11 IF EXISTS;
DROP INDEX fact_embedding_12 IF EXISTS;
DROP INDEX fact_embedding_13 IF EXISTS;
DROP INDEX fact_embedding_14 IF EXISTS;
DROP INDEX fact_embedding_15 IF EXISTS;
