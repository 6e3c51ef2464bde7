// How many facts of a scope are candidates for a neighbour search (picks exact scan or index),
// counted up to $cap: past it the answer is "the index" whatever the exact number.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.status IN $statuses
WITH f LIMIT $cap
RETURN count(f) AS count
