// The vector side of hybrid search: one index per shard of the scopes (graph/storage/vector_shards.py:
// a fact carries its scope's :VectorShardNN label). $dimensions comes from the embedder; a
// mismatch with an existing index stops start-up (see graph/storage/schema.py) rather than silently mixing
// models. The single index over every fact of earlier versions, fact_embedding, is dropped once
// every fact has its shard label (graph/storage/schema.py label_shards).
CREATE VECTOR INDEX fact_embedding_00 IF NOT EXISTS FOR (f:VectorShard00) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_01 IF NOT EXISTS FOR (f:VectorShard01) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_02 IF NOT EXISTS FOR (f:VectorShard02) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_03 IF NOT EXISTS FOR (f:VectorShard03) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_04 IF NOT EXISTS FOR (f:VectorShard04) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_05 IF NOT EXISTS FOR (f:VectorShard05) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_06 IF NOT EXISTS FOR (f:VectorShard06) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_07 IF NOT EXISTS FOR (f:VectorShard07) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_08 IF NOT EXISTS FOR (f:VectorShard08) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_09 IF NOT EXISTS FOR (f:VectorShard09) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_10 IF NOT EXISTS FOR (f:VectorShard10) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_11 IF NOT EXISTS FOR (f:VectorShard11) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_12 IF NOT EXISTS FOR (f:VectorShard12) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_13 IF NOT EXISTS FOR (f:VectorShard13) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_14 IF NOT EXISTS FOR (f:VectorShard14) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX fact_embedding_15 IF NOT EXISTS FOR (f:VectorShard15) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
