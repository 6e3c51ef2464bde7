// The expiry sweep's `hide` (graph/consolidation/consolidator.py): live facts past their
// expires_at, still holding their live_hash, leave exact deduplication; they stay active (reads
// hide them by expires_at, mem0's show_expired shows them). The longest expired first.
MATCH (f:Fact)
WHERE f.expires_at <= $now AND f.status IN ['active', 'quarantined']
  AND f.live_hash IS NOT NULL
  AND ($scope IS NULL OR f.scope = $scope)
WITH f ORDER BY f.expires_at, f.id LIMIT $limit
REMOVE f.live_hash
RETURN count(f) AS hidden
