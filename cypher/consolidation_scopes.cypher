// The scopes with queued facts, the one waiting longest first, with their queue depth.
// Reads the queue index (cypher/schema/013_consolidation.cypher) only.
MATCH (f:Fact)
WHERE f.scope IS NOT NULL AND f.consolidation_queued_at IS NOT NULL
WITH f.scope AS scope, min(f.consolidation_queued_at) AS oldest, count(*) AS queued
RETURN scope, toString(oldest) AS oldest, queued
ORDER BY oldest, scope
LIMIT $limit
