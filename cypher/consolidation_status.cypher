// A scope's consolidation queue: how many facts wait, and since when.
OPTIONAL MATCH (f:Fact)
WHERE f.scope = $scope AND f.consolidation_queued_at IS NOT NULL
RETURN count(f) AS queued, toString(min(f.consolidation_queued_at)) AS oldest
