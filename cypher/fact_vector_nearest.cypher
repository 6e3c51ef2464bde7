// The $k facts of a scope nearest $vector by its vector index alone, with their scores: what
// `factgraph embed`, `reembed` and the importers left searchable (their tests ask it). 5.26:
// the scope's shard ($index, graph/storage/vector_shards.py), over-fetched and filtered.
CALL db.index.vector.queryNodes($index, $k * 20, $vector) YIELD node, score
WITH node AS f, score
WHERE f.scope = $scope
RETURN f.id AS id, score
ORDER BY score DESC
LIMIT $k
