// remember_many's near-duplicate candidates through the scope's vector index ($index), for a
// scope too big to scan (the batch form of cypher/fact_neighbours_index.cypher): over-fetched
// ($fetch) then filtered to the scope, $k per vector at most.
UNWIND range(0, size($vectors) - 1) AS i
CALL (i) {
  CALL db.index.vector.queryNodes($index, $fetch, $vectors[i]) YIELD node AS f, score
  WITH f, score
  WHERE f.scope = $scope AND f.status = 'active'
  WITH f, score
  ORDER BY score DESC, f.id
  LIMIT $k
  RETURN collect({fact: f {.*, embedding: null}, score: score}) AS near
}
RETURN i, near
