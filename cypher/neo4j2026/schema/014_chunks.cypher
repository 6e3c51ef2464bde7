// Neo4j 2026.01+: one vector index over every chunk of a long text (graph/write/chunks.py), filtered
// by scope inside the index as the facts' is (cypher/neo4j2026/schema/003_vector.cypher); this
// replaces the sixteen chunk shards of 5.26 (cypher/schema/014_chunks.cypher), dropped here. A chunk's
// status is its fact's: search filters it through CHUNK_OF, so only the scope is in the index.
CYPHER 25 CREATE VECTOR INDEX chunk_embedding_filtered IF NOT EXISTS
  FOR (c:Chunk) ON c.embedding WITH [c.scope]
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
DROP INDEX chunk_embedding_00 IF EXISTS;
DROP INDEX chunk_embedding_01 IF EXISTS;
DROP INDEX chunk_embedding_02 IF EXISTS;
DROP INDEX chunk_embedding_03 IF EXISTS;
DROP INDEX chunk_embedding_04 IF EXISTS;
DROP INDEX chunk_embedding_05 IF EXISTS;
DROP INDEX chunk_embedding_06 IF EXISTS;
DROP INDEX chunk_embedding_07 IF EXISTS;
DROP INDEX chunk_embedding_08 IF EXISTS;
DROP INDEX chunk_embedding_09 IF EXISTS;
DROP INDEX chunk_embedding_10 IF EXISTS;
DROP INDEX chunk_embedding_11 IF EXISTS;
DROP INDEX chunk_embedding_12 IF EXISTS;
DROP INDEX chunk_embedding_13 IF EXISTS;
DROP INDEX chunk_embedding_14 IF EXISTS;
DROP INDEX chunk_embedding_15 IF EXISTS;
// A scope's chunks, for the exact fallback of search and for deleting a scope.
CREATE RANGE INDEX chunk_scope IF NOT EXISTS FOR (c:Chunk) ON (c.scope);
