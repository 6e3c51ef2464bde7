// The audit events of a remember_many batch, in the order one-by-one writes would record
// them (the batch form of cypher/audit_record.cypher).
UNWIND $events AS e
CREATE (a:AuditEvent {id: e.id, scope: $scope, kind: e.kind, actor: $actor, reason: e.reason,
                      at: datetime(e.at), fact_id: e.fact_id})
WITH a, e
OPTIONAL MATCH (f:Fact {id: e.fact_id}) WHERE f.scope = $scope
CALL (a, f) {
  WITH a, f WHERE f IS NOT NULL
  CREATE (a)-[:CONCERNS]->(f)
}
RETURN count(a) AS recorded
