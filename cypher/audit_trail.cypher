// Every recorded state change of one fact, in order.
MATCH (a:AuditEvent)
WHERE a.scope = $scope AND a.fact_id = $fact_id
RETURN a.id AS id, a.fact_id AS fact_id, a.kind AS kind, a.actor AS actor, a.reason AS reason,
       a.at AS at
ORDER BY a.at, a.id
