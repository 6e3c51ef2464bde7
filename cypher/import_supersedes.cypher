// Restore supersede chains of imported facts: (new)-[:SUPERSEDES {reason, at}]->(old).
// Idempotent (an existing edge is left as it is) and only within one scope. Outcomes per link:
// linked (created now), present (already there), missing (the old fact is not, or not yet,
// in the scope: the importer retries at the end), orphan (the new fact is not there).
UNWIND $links AS link
CALL (link) {
  OPTIONAL MATCH (new:Fact {id: link.new})
  OPTIONAL MATCH (old:Fact {id: link.old})
  WITH link, new, old, new IS NOT NULL AND old IS NOT NULL AND new.scope = old.scope AS ok
  WITH link, new, old, ok, ok AND EXISTS { (new)-[:SUPERSEDES]->(old) } AS present
  CALL (link, new, old, ok, present) {
    WITH link, new, old WHERE ok AND NOT present
    CREATE (new)-[:SUPERSEDES {reason: link.reason, at: link.at}]->(old)
  }
  RETURN CASE
           WHEN new IS NULL THEN 'orphan'
           WHEN NOT ok THEN 'missing'
           WHEN present THEN 'present'
           ELSE 'linked'
         END AS outcome
}
RETURN link.new AS new, link.old AS old, outcome
