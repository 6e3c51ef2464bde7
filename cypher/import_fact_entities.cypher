// Link the facts a fast-import batch created to their entities (graph/bulk/importer.py), once
// per batch instead of once per row: each entity is merged once, with every name it was
// mentioned by in file order, then each of its mentions is a plain CREATE (the facts are new,
// and the importer sends each (fact, role, entity) once), from the fact's element id that
// cypher/import_facts.cypher returned in this transaction: no index seek for the fact, nor
// for the entity just merged. The end state is the one cypher/fact_insert
// leaves after the same mentions one by one: the first name becomes the entity's name, each
// other new name an alias, and lexical_text is rebuilt as the last mention rebuilt it.
// $entities: [{scope, canonical, type, names, mentions: [{node, role}]}], mentions in file order.
UNWIND $entities AS ent
MERGE (e:Entity {scope: ent.scope, canonical: ent.canonical})
  ON CREATE SET e.name = ent.names[0], e.aliases = [], e.type = ent.type,
                e.lexical_text = toLower(ent.names[0]), e.created_at = $now
WITH e, ent.mentions AS mentions, ent.names[-1] AS last,
     reduce(a = e.aliases, n IN ent.names[..-1] |
            CASE WHEN n <> e.name AND NOT n IN a THEN a + n ELSE a END) AS before
WITH e, mentions,
     CASE WHEN last <> e.name AND NOT last IN before THEN before + last ELSE before END AS aliases,
     toLower(reduce(s = e.name, a IN before + [last] | s + '\n' + a)) AS lexical
// Written only when they change: most batches mention entities that are already complete.
CALL (e, aliases, lexical) {
  WITH e, aliases, lexical
  WHERE NOT coalesce(e.aliases = aliases AND e.lexical_text = lexical, false)
  SET e.aliases = aliases, e.lexical_text = lexical
}
UNWIND mentions AS m
MATCH (f:Fact) WHERE elementId(f) = m.node
CREATE (f)-[:MENTIONS {role: m.role}]->(e)
RETURN count(*) AS linked
