// Restore the sources of imported synthesised facts: (fact)-[:DERIVED_FROM]->(source), as
// cypher/fact_derive.cypher links them. Idempotent (an existing edge is left as it is) and only
// within one scope. Outcomes per link: linked (created now), present (already there), missing
// (the source is not, or not yet, in the scope: the importer retries at the end), orphan (the
// derived fact is not there).
UNWIND $links AS link
CALL (link) {
  OPTIONAL MATCH (new:Fact {id: link.new})
  OPTIONAL MATCH (old:Fact {id: link.old})
  WITH link, new, old, new IS NOT NULL AND old IS NOT NULL AND new.scope = old.scope AS ok
  WITH link, new, old, ok, ok AND EXISTS { (new)-[:DERIVED_FROM]->(old) } AS present
  CALL (new, old, ok, present) {
    WITH new, old WHERE ok AND NOT present
    CREATE (new)-[:DERIVED_FROM]->(old)
  }
  RETURN CASE
           WHEN new IS NULL THEN 'orphan'
           WHEN NOT ok THEN 'missing'
           WHEN present THEN 'present'
           ELSE 'linked'
         END AS outcome
}
RETURN link.new AS new, link.old AS old, outcome
