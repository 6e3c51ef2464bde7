// The live (active or quarantined) fact of a scope holding exactly this content, if any.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.live_hash = $hash
RETURN f {.*, embedding: null} AS fact
