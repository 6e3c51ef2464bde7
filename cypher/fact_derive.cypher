// Link a synthesised fact to the turns it was drawn from, in the transaction that wrote it.
// Returns how many sources were linked: fewer than asked means a source is gone, and the
// caller rolls the whole write back (never a synthesised fact without its sources).
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
UNWIND $sources AS source_id
MATCH (s:Fact {id: source_id})
WHERE s.scope = $scope
MERGE (f)-[:DERIVED_FROM]->(s)
RETURN count(DISTINCT s) AS linked
