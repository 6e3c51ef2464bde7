// The query vector's cosine (index scale) of candidates that came without one: the passage list
// of an overlapped search is asked before the query is embedded (graph/search/candidates.py).
// The ids come in a map ($ask): a list parameter's size keys the plan cache (candidates.py).
UNWIND $ask.ids AS id
MATCH (f:Fact {id: id})
WHERE f.scope = $scope AND f.embedding IS NOT NULL
RETURN f.id AS id, vector.similarity.cosine(f.embedding, $vector) AS score
