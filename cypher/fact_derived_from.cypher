// The facts a synthesised fact was drawn from (its DERIVED_FROM links), in turn order.
MATCH (f:Fact {id: $id})-[:DERIVED_FROM]->(s:Fact)
WHERE f.scope = $scope AND s.scope = $scope
RETURN s.id AS id
ORDER BY s.session_id, s.turn, s.id
