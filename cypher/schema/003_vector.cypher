// The vector side of hybrid search. $dimensions comes from the embedder; a mismatch with an
// existing index stops start-up (see graph/schema.py) rather than silently mixing models.
CREATE VECTOR INDEX fact_embedding IF NOT EXISTS FOR (f:Fact) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}};
