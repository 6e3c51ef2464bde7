// Refresh on read: move the TTL of active facts that have one. Facts without a TTL keep none.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.scope = $scope AND f.status = 'active' AND f.expires_at IS NOT NULL
SET f.expires_at = row.expires_at
RETURN count(f) AS moved
