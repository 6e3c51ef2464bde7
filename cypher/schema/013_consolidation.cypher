// The consolidation queue (graph/consolidation/): a fact waits with its queued-at time, and the
// worker takes each scope's facts oldest first. Only queued facts carry the property, so the
// index holds the queue and nothing else.
CREATE RANGE INDEX fact_consolidation_queue IF NOT EXISTS FOR (f:Fact) ON (f.scope, f.consolidation_queued_at);
// Expiry: facts past their expires_at, found without scanning the store.
CREATE RANGE INDEX fact_expires_at IF NOT EXISTS FOR (f:Fact) ON (f.expires_at);
