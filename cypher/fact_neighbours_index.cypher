// Nearest neighbours through the scope's vector index ($index, graph/storage/vector_shards.py),
// over-fetched ($fetch) then filtered to the scope.
CALL db.index.vector.queryNodes($index, $fetch, $vector) YIELD node AS f, score
WITH f, score
WHERE f.scope = $scope AND f.status IN $statuses AND NOT f.id IN $exclude
RETURN f {.*, embedding: null} AS fact, score
ORDER BY score DESC, f.id
LIMIT $k
