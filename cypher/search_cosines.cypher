// The query vector's score (index scale; the best of the fact's own vector's and its chunks', less
// $chunk_discount as in search_candidates.cypher)
// of candidates that came without one: the passage list of an overlapped search is asked
// before the query is embedded (graph/search/candidates.py). The ids come in a map ($ask): a
// list parameter's size keys the plan cache (candidates.py).
UNWIND $ask.ids AS id
MATCH (f:Fact {id: id})
WHERE f.scope = $scope AND f.embedding IS NOT NULL
WITH f, vector.similarity.cosine(f.embedding, $vector) AS own,
     COLLECT { MATCH (f)<-[:CHUNK_OF]-(c:Chunk) RETURN vector.similarity.cosine(c.embedding, $vector) } AS windows
RETURN f.id AS id,
       reduce(best = own, s IN windows |
         CASE WHEN s - $chunk_discount > best THEN s - $chunk_discount ELSE best END) AS score
