// bench/recall.py: each candidate's vector score against the question's (index scale; the best
// of its own vector's and its chunks', as search scores it), and its own vector (for the
// candidates' similarities to each other).
MATCH (f:Fact)
WHERE f.scope = $scope AND f.id IN $ids AND f.embedding IS NOT NULL
WITH f, vector.similarity.cosine(f.embedding, $vector) AS own,
     COLLECT { MATCH (f)<-[:CHUNK_OF]-(c:Chunk) RETURN vector.similarity.cosine(c.embedding, $vector) } AS windows
RETURN f.id AS id, reduce(best = own, s IN windows | CASE WHEN s > best THEN s ELSE best END) AS score,
       f.embedding AS embedding
