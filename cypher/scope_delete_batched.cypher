// Delete a large scope in bounded transactions (e.g. 100,000 facts and their audit trail),
// where cypher/scope_delete.cypher would need one huge transaction. CALL { } IN TRANSACTIONS
// only runs in an auto-commit transaction: `factgraph drop-scope`, cypher-shell, or
// graph.bulk.autocommit.
//   factgraph cypher-shell --param "scope => 'bench'" -f cypher/scope_delete_batched.cypher
CALL () {
  MATCH (f:Fact {scope: $scope}) RETURN f AS n
  UNION ALL
  MATCH (c:Chunk {scope: $scope}) RETURN c AS n
  UNION ALL
  MATCH (a:AuditEvent {scope: $scope}) RETURN a AS n
  UNION ALL
  MATCH (e:Entity {scope: $scope}) RETURN e AS n
  UNION ALL
  MATCH (t:Tag {scope: $scope}) RETURN t AS n
  UNION ALL
  MATCH (t:Term {scope: $scope}) RETURN t AS n
  UNION ALL
  MATCH (c:Context {scope: $scope}) RETURN c AS n
  UNION ALL
  MATCH (e:Mem0Event {scope: $scope}) RETURN e AS n
}
CALL (n) {
  DETACH DELETE n
} IN TRANSACTIONS OF 5000 ROWS
