// The knowledge graph's live relations (facts of partition $partition with a subject and an
// object entity; the relation type is the predicate): all of the scope's, or those with an
// end in $canonicals when it is not null (an end: its subject or object, not an entity its
// text mentions). Oldest first; each end by its entity's name.
CALL () {
  WITH $canonicals AS named
  WHERE named IS NULL
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.partition = $partition AND f.status = 'active'
    AND f.object IS NOT NULL
  RETURN f
  UNION
  UNWIND coalesce($canonicals, []) AS canonical
  MATCH (:Entity {scope: $scope, canonical: canonical})<-[m:MENTIONS]-(f:Fact)
  WHERE m.role IN ['subject', 'object']
    AND f.scope = $scope AND f.partition = $partition AND f.status = 'active'
    AND f.object IS NOT NULL
  RETURN f
}
MATCH (s:Entity)<-[:MENTIONS {role: 'subject'}]-(f)-[:MENTIONS {role: 'object'}]->(o:Entity)
RETURN s.name AS source, f.predicate AS type, o.name AS target
ORDER BY f.valid_from, f.recorded_at, f.id
