// How many facts of a scope are candidates for a neighbour search (picks exact scan or index).
MATCH (f:Fact)
WHERE f.scope = $scope AND f.status IN $statuses
RETURN count(f) AS count
