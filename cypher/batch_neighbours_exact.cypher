// remember_many's near-duplicate candidates, every candidate of the scope scored against each
// vector of the batch (the batch form of cypher/fact_neighbours_exact.cypher). The scope's
// facts are read once, each vector compared with all of them: reading a stored vector costs
// more than comparing it. Only scores at or above $min_score come back: the pipeline stops at
// the first neighbour below the near-duplicate threshold, so the others cannot change a
// decision. The score is on the vector index's scale ((1 + cosine) / 2). Vectors without a
// candidate at or above it get no row.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.status = 'active' AND f.embedding IS NOT NULL
WITH f, f.embedding AS embedding
UNWIND range(0, size($vectors) - 1) AS i
WITH i, f, vector.similarity.cosine(embedding, $vectors[i]) AS score
WHERE score >= $min_score
WITH i, f, score
ORDER BY score DESC, f.id
WITH i, collect({fact: f {.*, embedding: null}, score: score}) AS near
RETURN i, near[..$k] AS near
