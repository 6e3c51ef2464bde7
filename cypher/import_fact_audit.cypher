// The audit trail of a fast-import batch (graph/bulk/importer.py): one insert event per fact
// created, as cypher/audit_record.cypher records an agent's write, in one statement per batch.
// $events: [{id, fact_id, node, scope, reason}]: `node` is the fact's element id, as
// cypher/import_facts.cypher returned it in this transaction.
UNWIND $events AS ev
MATCH (f:Fact) WHERE elementId(f) = ev.node
CREATE (a:AuditEvent {id: ev.id, scope: ev.scope, kind: 'insert', actor: $actor,
                      reason: ev.reason, at: $now, fact_id: ev.fact_id})
CREATE (a)-[:CONCERNS]->(f)
RETURN count(a) AS recorded
