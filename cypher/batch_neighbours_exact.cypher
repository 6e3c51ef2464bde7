// remember_many's near-duplicate candidates, every candidate of the scope scored for each
// vector of the batch (the batch form of cypher/fact_neighbours_exact.cypher). Only scores at
// or above $min_score come back: the pipeline stops at the first neighbour below the
// near-duplicate threshold, so the others cannot change a decision. The score is on the vector
// index's scale ((1 + cosine) / 2).
UNWIND range(0, size($vectors) - 1) AS i
CALL (i) {
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.status = 'active' AND f.embedding IS NOT NULL
  WITH f, vector.similarity.cosine(f.embedding, $vectors[i]) AS score
  WHERE score >= $min_score
  WITH f, score
  ORDER BY score DESC, f.id
  LIMIT $k
  RETURN collect({fact: f {.*, embedding: null}, score: score}) AS near
}
RETURN i, near
