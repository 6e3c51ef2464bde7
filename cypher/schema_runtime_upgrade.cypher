// The first thing start-up writes, before any schema statement. After a store upgrade (5.26 ->
// 2026.x, docs/neo4j-versions.md) Neo4j moves a database to its new kernel version only at the
// first transaction that writes data; a schema statement is not one. Until then what the new
// version adds is refused: cypher/neo4j2026/schema/003_vector.cypher's filtered vector index
// failed with "Creating a filtering vector index with provider 'vector-2.0' is not supported".
// One unlabelled node created and deleted in the same transaction leaves nothing behind (not
// even a label token); on a store already at its version it is a no-op write.
CREATE (probe) DELETE probe
