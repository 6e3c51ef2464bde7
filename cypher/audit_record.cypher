// One audit event per state change: who did what to which fact, and why.
// fact_id is a plain property so the trail survives a purge of the fact itself.
CREATE (a:AuditEvent {id: $id, scope: $scope, kind: $kind, actor: $actor, reason: $reason,
                      at: $now, fact_id: $fact_id})
WITH a
OPTIONAL MATCH (f:Fact {id: $fact_id}) WHERE f.scope = $scope
CALL (a, f) {
  WITH a, f WHERE f IS NOT NULL
  CREATE (a)-[:CONCERNS]->(f)
}
RETURN a.id AS id
