// Unique ids and the keys that make concurrent writers converge on one node.
// Applied idempotently at start-up by graph/storage/schema.py (IF NOT EXISTS everywhere).
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (f:Fact) REQUIRE f.id IS UNIQUE;
// live_hash is set only while a fact is active or quarantined, so exact duplicates of live
// content collide here even under concurrency, while retired rows keep their content_hash.
CREATE CONSTRAINT fact_live_hash IF NOT EXISTS FOR (f:Fact) REQUIRE (f.scope, f.live_hash) IS UNIQUE;
CREATE CONSTRAINT entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.scope, e.canonical) IS UNIQUE;
CREATE CONSTRAINT tag_key IF NOT EXISTS FOR (t:Tag) REQUIRE (t.scope, t.name) IS UNIQUE;
// The terms facts mention (graph/reading/, cypher/reading_link.cypher): one per key in a scope.
CREATE CONSTRAINT term_key IF NOT EXISTS FOR (t:Term) REQUIRE (t.scope, t.canonical) IS UNIQUE;
CREATE CONSTRAINT context_key IF NOT EXISTS FOR (c:Context) REQUIRE (c.scope, c.id) IS UNIQUE;
CREATE CONSTRAINT audit_event_id IF NOT EXISTS FOR (a:AuditEvent) REQUIRE a.id IS UNIQUE;
