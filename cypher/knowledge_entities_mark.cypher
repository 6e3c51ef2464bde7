// create_entities (graph/adapters/knowledge_graph/): make each entity of $entities ({canonical, name, type, at})
// a member of the scope's knowledge graph. The Entity node is the one facts link to (made
// here if no fact named it yet); a node that was not a member takes the graph's name (a name
// it was known by before stays an alias) and type, and kg_created_at = `at` (its place in the
// graph's order). A member keeps its name; with $merge (mcp-neo4j-memory) its type is replaced.
UNWIND $entities AS ent
MERGE (e:Entity {scope: $scope, canonical: ent.canonical})
  ON CREATE SET e.name = ent.name, e.aliases = [], e.lexical_text = toLower(ent.name),
                e.created_at = $now
SET e._lock = true
REMOVE e._lock
WITH e, ent, e.kg_created_at IS NULL AS joining
CALL (e, ent, joining) {
  WITH e, ent, joining
  WHERE joining
  WITH e, ent, [a IN coalesce(e.aliases, []) WHERE a <> ent.name] +
               CASE WHEN e.name <> ent.name THEN [e.name] ELSE [] END AS aliases
  SET e.name = ent.name, e.aliases = aliases, e.type = ent.type, e.kg_created_at = ent.at,
      e.lexical_text = toLower(reduce(s = ent.name, a IN aliases | s + '\n' + a))
  REMOVE e.kg_deleted_at
}
CALL (e, ent, joining) {
  WITH e, ent, joining
  WHERE NOT joining AND $merge
  SET e.type = ent.type
}
RETURN ent.canonical AS canonical, joining
