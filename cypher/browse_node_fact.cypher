// A fact by id with (when $neighbours) references to its direct neighbours: the entities it
// mentions, the facts it supersedes and that supersede it (any status but forgotten: that is
// its history), and up to $limit active facts sharing an entity with it, newest first.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope AND f.status <> 'forgotten'
CALL (f) {
  OPTIONAL MATCH (f)-[m:MENTIONS]->(e:Entity)
  WHERE $neighbours AND e.scope = $scope
  WITH m, e
  ORDER BY m.role DESC, e.canonical
  RETURN collect(CASE WHEN e IS NOT NULL THEN
    {id: 'entity:' + e.canonical, edge_type: 'MENTIONS', relation: coalesce(m.role, 'mentions'), via: null}
  END) AS entities
}
CALL (f) {
  OPTIONAL MATCH (f)-[s:SUPERSEDES]->(old:Fact)
  WHERE $neighbours AND old.scope = $scope AND old.status <> 'forgotten'
  WITH s, old
  ORDER BY s.at DESC, old.id
  RETURN collect(CASE WHEN old IS NOT NULL THEN
    {id: old.id, edge_type: 'SUPERSEDES', relation: 'supersedes', via: null}
  END) AS older
}
CALL (f) {
  OPTIONAL MATCH (newer:Fact)-[s:SUPERSEDES]->(f)
  WHERE $neighbours AND newer.scope = $scope AND newer.status <> 'forgotten'
  WITH s, newer
  ORDER BY s.at DESC, newer.id
  RETURN collect(CASE WHEN newer IS NOT NULL THEN
    {id: newer.id, edge_type: 'SUPERSEDES', relation: 'superseded_by', via: null}
  END) AS newer
}
CALL (f) {
  OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(g:Fact)
  WHERE $neighbours AND g <> f AND g.scope = $scope AND g.status = 'active'
  WITH g, min(e.canonical) AS via
  ORDER BY g.valid_from DESC, g.recorded_at DESC, g.id DESC
  LIMIT $limit
  RETURN collect(CASE WHEN g IS NOT NULL THEN
    {id: g.id, edge_type: 'MENTIONS', relation: 'shares_entity', via: 'entity:' + via}
  END) AS sharing
}
RETURN f {.*, embedding: null} AS fact, entities + older + newer + sharing AS neighbours
