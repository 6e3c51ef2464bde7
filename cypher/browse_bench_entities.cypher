// bench/browse.py: the entities the seeded facts mention, created once per bench scope.
UNWIND $entities AS ent
MERGE (e:Entity {scope: $scope, canonical: ent.canonical})
  ON CREATE SET e.name = ent.name, e.aliases = ent.aliases, e.type = null,
                e.lexical_text = toLower(reduce(s = ent.name, a IN ent.aliases | s + '\n' + a)),
                e.created_at = $now
RETURN count(e) AS entities
