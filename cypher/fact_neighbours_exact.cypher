// Exact nearest neighbours within a scope: every candidate scored, no post-filter shortfall.
// The score is on the vector index's scale ((1 + cosine) / 2) so both paths agree.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.status IN $statuses AND f.embedding IS NOT NULL
  AND NOT f.id IN $exclude
WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
ORDER BY score DESC, f.id
LIMIT $k
RETURN f {.*, embedding: null} AS fact, score
