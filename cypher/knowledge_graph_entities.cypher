// The knowledge graph's entities (all of the scope's, or those of $canonicals when it is not
// null) with their live observations, in the order each was given (graph/adapters/knowledge_graph/).
CALL () {
  WITH $canonicals AS named
  WHERE named IS NULL
  MATCH (e:Entity)
  WHERE e.scope = $scope AND e.kg_created_at IS NOT NULL
  RETURN e
  UNION
  UNWIND coalesce($canonicals, []) AS canonical
  MATCH (e:Entity {scope: $scope, canonical: canonical})
  WHERE e.kg_created_at IS NOT NULL
  RETURN e
}
CALL (e) {
  OPTIONAL MATCH (e)<-[:MENTIONS {role: 'subject'}]-(f:Fact)
  WHERE f.scope = $scope AND f.status = 'active' AND f.partition = $partition
    AND f.object IS NULL
  WITH f
  ORDER BY f.valid_from, f.recorded_at, f.id
  RETURN collect(substring(f.text, size(f.subject) + 2)) AS observations
}
RETURN e.canonical AS canonical, e.name AS name, coalesce(e.type, '') AS type, observations
ORDER BY e.kg_created_at, e.canonical
