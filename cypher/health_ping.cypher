// The server version: the cheapest query that proves Neo4j answers (health probe, no retry).
// 2025.x and later also list a 'Cypher' component (its language versions): the kernel's is kept.
CALL dbms.components() YIELD name, versions
WHERE name = 'Neo4j Kernel'
RETURN versions[0] AS version
