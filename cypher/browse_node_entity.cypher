// An entity by its canonical key with (when $neighbours) up to $limit active facts that
// mention it, newest first; relation is the entity's role in that fact (subject / object).
MATCH (e:Entity {scope: $scope, canonical: $canonical})
CALL (e) {
  OPTIONAL MATCH (e)<-[m:MENTIONS]-(f:Fact)
  WHERE $neighbours AND f.scope = $scope AND f.status = 'active'
  WITH f, m
  ORDER BY f.valid_from DESC, f.recorded_at DESC, f.id DESC, m.role DESC
  LIMIT $limit
  RETURN collect(CASE WHEN f IS NOT NULL THEN
    {id: f.id, edge_type: 'MENTIONS', relation: coalesce(m.role, 'mentions'), via: null}
  END) AS facts
}
RETURN e {.*} AS entity, facts AS neighbours
