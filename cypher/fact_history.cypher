// The whole supersede chain a fact belongs to, oldest to newest, every status included.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
MATCH (f)-[:SUPERSEDES*0..]-(x:Fact)
WHERE x.scope = $scope
WITH DISTINCT x
RETURN x {.*, embedding: null} AS fact
ORDER BY x.valid_from, x.recorded_at, x.id
