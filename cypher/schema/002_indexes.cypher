// Range and text indexes for the lookups the service makes.
CREATE RANGE INDEX fact_scope_status IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.status);
CREATE RANGE INDEX fact_scope_session_turn IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.session_id, f.turn);
CREATE RANGE INDEX fact_scope_valid_from IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.valid_from);
CREATE RANGE INDEX fact_scope_subject_predicate_key IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.subject_key, f.predicate_key);
CREATE RANGE INDEX audit_event_fact IF NOT EXISTS FOR (a:AuditEvent) ON (a.scope, a.fact_id);
// Substring (CONTAINS) matching for lexical search runs on a TEXT index over a lowercased copy.
CREATE TEXT INDEX fact_lexical IF NOT EXISTS FOR (f:Fact) ON (f.lexical_text);
CREATE TEXT INDEX entity_lexical IF NOT EXISTS FOR (e:Entity) ON (e.lexical_text);
// Full-text (Lucene) over the contextual index text: the lexical side of hybrid search.
CREATE FULLTEXT INDEX fact_fulltext IF NOT EXISTS FOR (f:Fact) ON EACH [f.index_text]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}};
// A scope's standing instructions and preferences (:Standing, graph/reading/standing.py): what
// every search scores against its query, so a seek, not a scan of the scope's facts.
CREATE RANGE INDEX fact_standing IF NOT EXISTS FOR (f:Standing) ON (f.scope, f.status);
