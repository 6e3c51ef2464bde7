// The next facts to re-embed, in id order (the fact_id constraint's index gives the order),
// with the text that was embedded for them: the contextual index text.
MATCH (f:Fact)
WHERE f.embedding IS NOT NULL AND ($scopes IS NULL OR f.scope IN $scopes)
  AND ($all OR coalesce(f.embedder, '') <> $embedder) AND f.id > $after
RETURN f.id AS id, coalesce(f.index_text, f.text) AS text
ORDER BY f.id
LIMIT $limit
