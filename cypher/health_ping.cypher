// The server version: the cheapest query that proves Neo4j answers (health probe, no retry).
CALL dbms.components() YIELD versions
RETURN versions[0] AS version
