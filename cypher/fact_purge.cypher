// Hard delete: the fact with its vector and text, the chunks of its long text (their vectors,
// graph/write/chunks.py), the audit events that described it (the caller then records one event
// with only the id and the reason), and entities, tags and terms that no other fact uses any more.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
CALL (f) {
  MATCH (f)<-[:CHUNK_OF]-(c:Chunk)
  DETACH DELETE c
}
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)
OPTIONAL MATCH (f)-[:TAGGED]->(t:Tag)
OPTIONAL MATCH (f)-[:MENTIONS]->(term:Term)
WITH f, collect(DISTINCT e) AS entities, collect(DISTINCT t) AS tags,
     collect(DISTINCT term) AS terms
DETACH DELETE f
WITH entities, tags, terms
CALL (terms) {
  UNWIND terms AS t
  WITH t WHERE NOT EXISTS { (t)<-[:MENTIONS]-(:Fact) }
  DETACH DELETE t
}
CALL (entities) {
  UNWIND entities AS e
  WITH e WHERE NOT EXISTS { (e)<-[:MENTIONS]-(:Fact) }
  DETACH DELETE e
}
CALL (tags) {
  UNWIND tags AS t
  WITH t WHERE NOT EXISTS { (t)<-[:TAGGED]-(:Fact) }
  DETACH DELETE t
}
CALL () {
  MATCH (a:AuditEvent)
  WHERE a.scope = $scope AND a.fact_id = $id
  DETACH DELETE a
}
RETURN true AS purged
