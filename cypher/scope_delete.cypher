// Remove every node of a scope (tests, and an operator dropping a tenant).
CALL () {
  MATCH (f:Fact {scope: $scope}) DETACH DELETE f
}
CALL () {
  MATCH (c:Chunk {scope: $scope}) DETACH DELETE c
}
CALL () {
  MATCH (e:Entity {scope: $scope}) DETACH DELETE e
}
CALL () {
  MATCH (t:Tag {scope: $scope}) DETACH DELETE t
}
CALL () {
  MATCH (t:Term {scope: $scope}) DETACH DELETE t
}
CALL () {
  MATCH (c:Context {scope: $scope}) DETACH DELETE c
}
CALL () {
  MATCH (a:AuditEvent {scope: $scope}) DETACH DELETE a
}
CALL () {
  MATCH (e:Mem0Event {scope: $scope}) DETACH DELETE e
}
RETURN true AS done
