// A fact by id within its scope; the caller decides which statuses are visible.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
RETURN f {.*, embedding: null} AS fact
