// bench/recall.py: each candidate's own vector's score against the question's (index scale),
// and its best chunk's (null for a text with no chunks); search reads the better of the two.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.id IN $ids AND f.embedding IS NOT NULL
WITH f, vector.similarity.cosine(f.embedding, $vector) AS own,
     COLLECT { MATCH (f)<-[:CHUNK_OF]-(c:Chunk) RETURN vector.similarity.cosine(c.embedding, $vector) } AS windows
RETURN f.id AS id, own,
       reduce(best = null, s IN windows | CASE WHEN best IS NULL OR s > best THEN s ELSE best END) AS window
