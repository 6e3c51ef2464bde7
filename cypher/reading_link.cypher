// Link facts to the terms their text names, is about and identifies (graph/reading/): one
// (:Term) per canonical key in the fact's scope, `MENTIONS {role, weight}` from the fact, and
// `read_v` on the fact, the reader's version. Links a previous reading left are removed first,
// so reading a fact again (`factgraph read-texts`) leaves what one reading leaves.
// A term's specificity is how many facts mention it: its MENTIONS degree, which Neo4j keeps
// with the node, so it is current after every write and every purge at no cost to writers.
// $rows: [{id, terms: [{canonical, name, role, weight}]}].
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.read_v = $version
WITH f, row
CALL (f) {
  MATCH (f)-[old:MENTIONS]->(:Term)
  DELETE old
}
CALL (f, row) {
  UNWIND row.terms AS term
  MERGE (t:Term {scope: f.scope, canonical: term.canonical})
    ON CREATE SET t.name = term.name, t.created_at = $now
  CREATE (f)-[:MENTIONS {role: term.role, weight: term.weight}]->(t)
}
RETURN count(f) AS read
