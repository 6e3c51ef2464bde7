// `factgraph reembed` after a model change: each vector index over facts is dropped by name
// (cypher/vector_index_names.cypher) and rebuilt at the new dimension (graph/storage/schema.py recreates
// the shards from cypher/schema/003_vector.cypher).
DROP INDEX $name IF EXISTS
