// Whether the local server answers (run on the system database), and its version: the row of
// the 'Neo4j Kernel' component (2025.x and later also list a 'Cypher' one). The system
// database allows no WHERE here, so graph/platform/neo4j_local.py picks the row.
CALL dbms.components() YIELD name, versions RETURN name, versions[0] AS v
