// bench/import_speed.py floor: the same vector index as fact_embedding (cypher/schema/
// 003_vector.cypher), on a label of its own that nothing else indexes.
CREATE VECTOR INDEX bench_floor_embedding IF NOT EXISTS FOR (f:BenchFloorFact) ON (f.embedding)
  OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
