// The next facts to re-embed, in id order (the fact_id constraint's index gives the order),
// with the text that was embedded for them (the contextual index text) and the text itself,
// whose windows past the model's are its chunks (graph/write/chunks.py).
MATCH (f:Fact)
WHERE f.embedding IS NOT NULL AND ($scopes IS NULL OR f.scope IN $scopes)
  AND ($all OR coalesce(f.embedder, '') <> $embedder) AND f.id > $after
RETURN f.id AS id, f.scope AS scope, coalesce(f.index_text, f.text) AS text, f.text AS body
ORDER BY f.id
LIMIT $limit
