// The chunks of long texts (graph/write/chunks.py): the windows of a fact's text after the first,
// each a (:Chunk)-[:CHUNK_OF]->(:Fact) node with its own vector. Their vector indexes are split by
// the scope's shard as the facts' are (cypher/schema/003_vector.cypher, graph/storage/vector_shards.py),
// over the :ChunkShardNN labels; a store of short texts leaves them empty. $dimensions comes from the
// embedder and is checked with the facts' (graph/storage/schema.py).
CREATE VECTOR INDEX chunk_embedding_00 IF NOT EXISTS FOR (c:ChunkShard00) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_01 IF NOT EXISTS FOR (c:ChunkShard01) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_02 IF NOT EXISTS FOR (c:ChunkShard02) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_03 IF NOT EXISTS FOR (c:ChunkShard03) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_04 IF NOT EXISTS FOR (c:ChunkShard04) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_05 IF NOT EXISTS FOR (c:ChunkShard05) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_06 IF NOT EXISTS FOR (c:ChunkShard06) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_07 IF NOT EXISTS FOR (c:ChunkShard07) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_08 IF NOT EXISTS FOR (c:ChunkShard08) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_09 IF NOT EXISTS FOR (c:ChunkShard09) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_10 IF NOT EXISTS FOR (c:ChunkShard10) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_11 IF NOT EXISTS FOR (c:ChunkShard11) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_12 IF NOT EXISTS FOR (c:ChunkShard12) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_13 IF NOT EXISTS FOR (c:ChunkShard13) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_14 IF NOT EXISTS FOR (c:ChunkShard14) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX chunk_embedding_15 IF NOT EXISTS FOR (c:ChunkShard15) ON (c.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
// A scope's chunks, for a search whose filters left too few of them among the index's neighbours
// (scored exactly, cypher/search_candidates.cypher) and for deleting a scope.
CREATE RANGE INDEX chunk_scope IF NOT EXISTS FOR (c:Chunk) ON (c.scope);
