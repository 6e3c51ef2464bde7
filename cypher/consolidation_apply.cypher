// Write what the consolidator worked out for a batch of facts, in one transaction: the index
// text (never `text`) and its vector, the entities the fact mentions, one audit event per fact
// (and one per failed LLM enricher, whose reasons are also kept in `consolidation_error`),
// and the fact taken off the queue. Each fact is locked first (as in fact_lock.cypher) and is
// written only while it is still queued at the time the batch read: a fact consolidated by
// another worker, or queued again since, is left alone. A killed worker's batch rolls back as
// a whole and stays queued, so no fact is consolidated twice or lost.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.scope = $scope
SET f._lock = true
REMOVE f._lock
WITH f, row
WHERE toString(f.consolidation_queued_at) = row.queued_at
SET f.consolidation_queued_at = null,
    f.consolidated_at = $now,
    f.index_text = coalesce(row.index_text, f.index_text),
    f.consolidation_suffix = CASE WHEN row.index_text IS NULL THEN f.consolidation_suffix
                                  ELSE row.suffix END,
    f.consolidation_error = row.error
WITH f, row
CALL (f, row) {
  WITH f, row WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
}
CALL (f, row) {
  UNWIND row.mentions AS canonical
  MATCH (e:Entity {scope: $scope, canonical: canonical})
  MERGE (f)-[:MENTIONS {role: 'mention'}]->(e)
}
CALL (f, row) {
  UNWIND row.failures AS failure
  CREATE (x:AuditEvent {id: failure.audit_id, scope: $scope, kind: 'consolidate_failed',
                        actor: $actor, reason: failure.reason, at: $now, fact_id: f.id})
  CREATE (x)-[:CONCERNS]->(f)
}
CREATE (a:AuditEvent {id: row.audit_id, scope: $scope, kind: 'consolidate', actor: $actor,
                      reason: row.reason, at: $now, fact_id: f.id})
CREATE (a)-[:CONCERNS]->(f)
RETURN f.id AS id
