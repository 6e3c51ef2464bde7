// The timeline filtered by session or partition (cypher/browse_timeline_*.cypher): newest
// first straight from the index order, instead of walking the whole scope's valid-time index
// until enough facts of a small session or partition turn up.
CREATE RANGE INDEX fact_scope_session_valid IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.session_id, f.valid_from);
CREATE RANGE INDEX fact_scope_partition_valid IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.partition, f.valid_from);
