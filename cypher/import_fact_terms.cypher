// Link the facts a fast-import batch created to the terms their texts mention (graph/reading/,
// graph/bulk/importer.py): the batch form of cypher/reading_link.cypher, once per term instead
// of once per mention, reaching each fact by the element id that cypher/import_facts.cypher
// returned in this transaction (the facts are new: no earlier links to remove).
// $terms: [{scope, canonical, name, mentions: [{node, role, weight}]}]; $nodes: every fact read.
UNWIND $nodes AS node
MATCH (f:Fact) WHERE elementId(f) = node
SET f.read_v = $version
WITH count(*) AS marked
UNWIND $terms AS term
MERGE (t:Term {scope: term.scope, canonical: term.canonical})
  ON CREATE SET t.name = term.name, t.created_at = $now
WITH t, term
UNWIND term.mentions AS m
MATCH (f:Fact) WHERE elementId(f) = m.node
CREATE (f)-[:MENTIONS {role: m.role, weight: m.weight}]->(t)
RETURN count(*) AS linked
