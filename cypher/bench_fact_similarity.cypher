// bench/recall.py: each candidate's vector against the question's, on the vector index's scale,
// and the vector itself (for the candidates' similarities to each other).
MATCH (f:Fact)
WHERE f.scope = $scope AND f.id IN $ids AND f.embedding IS NOT NULL
RETURN f.id AS id, vector.similarity.cosine(f.embedding, $vector) AS score, f.embedding AS embedding
