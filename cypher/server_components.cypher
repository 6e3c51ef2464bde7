// Whether the local server answers (run on the system database), and its version (the
// kernel's: 2025.x and later also list a 'Cypher' component).
CALL dbms.components() YIELD name, versions
WHERE name = 'Neo4j Kernel'
RETURN versions[0] AS v
