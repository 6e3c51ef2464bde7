// Whether the local server answers (run on the system database), and its version.
CALL dbms.components() YIELD versions RETURN versions[0] AS v
