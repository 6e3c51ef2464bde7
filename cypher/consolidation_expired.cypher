// Live facts past their expires_at (hidden from reads already), the longest expired first.
MATCH (f:Fact)
WHERE f.expires_at <= $now AND f.status IN ['active', 'quarantined']
  AND ($scope IS NULL OR f.scope = $scope)
RETURN f.scope AS scope, f.id AS id, toString(f.expires_at) AS expires_at
ORDER BY f.expires_at, f.id
LIMIT $limit
