// Vectors that another model made, among a sample of the facts ($sample nodes, so start-up
// stays cheap at millions of facts): search would compare them with the query's vector as if
// one model had made both. $same: this model's id and 'supplied' (vectors a caller gave).
MATCH (f:Fact)
WITH f LIMIT $sample
WITH f
WHERE f.embedding IS NOT NULL AND f.embedder IS NOT NULL AND NOT f.embedder IN $same
RETURN f.embedder AS embedder, count(*) AS facts
ORDER BY facts DESC, embedder
LIMIT 3
