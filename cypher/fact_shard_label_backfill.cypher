// Give the facts of one scope that lack it their vector shard label ($label, computed from the
// scope by graph/storage/vector_shards.py), in bounded transactions (an auto-commit query). Each label
// added puts the fact's vector into its shard's index.
MATCH (f:Fact)
WHERE f.scope = $scope AND none(l IN labels(f) WHERE l STARTS WITH 'VectorShard')
CALL (f) {
  SET f:$($label)
} IN TRANSACTIONS OF 10000 ROWS
