// The stored embedding of one fact (neighbour lookups start from it).
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
RETURN f.embedding AS embedding
