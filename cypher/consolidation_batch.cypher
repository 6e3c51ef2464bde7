// The next facts of a scope's consolidation queue, in the order they were queued. The queued-at
// time travels as text and comes back with the apply statement, which consolidates a fact only
// while it is still queued at that time (a fact queued again meanwhile waits for the next run).
MATCH (f:Fact)
WHERE f.scope = $scope AND f.consolidation_queued_at IS NOT NULL
WITH f ORDER BY f.consolidation_queued_at, f.id LIMIT $limit
RETURN f.id AS id, f.text AS text, f.index_text AS index_text, f.status AS status, f.embedder AS embedder,
       f.source AS source, f.session_id AS session_id, f.turn AS turn,
       f.consolidation_suffix AS suffix, toString(f.valid_from) AS valid_from,
       toString(f.consolidation_queued_at) AS queued_at,
       [(f)-[:MENTIONS]->(e:Entity) | e.canonical] AS linked
