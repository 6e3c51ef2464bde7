// `factgraph reembed` after a model change: the vector index is rebuilt at the new dimension
// (graph/schema.py recreates it from cypher/schema/003_vector.cypher).
DROP INDEX fact_embedding IF EXISTS
