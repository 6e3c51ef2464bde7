// bench/segments.py: the vector index of fact_embedding_NN (cypher/schema/), on a label of its
// own that nothing else indexes, so its segment files are the bench's alone.
CREATE VECTOR INDEX bench_segments_embedding IF NOT EXISTS FOR (n:BenchSegments) ON (n.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
