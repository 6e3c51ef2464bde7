// How many facts `factgraph reembed` still has to do: vectors of another model (or, with
// $all, every vector after $after in id order).
MATCH (f:Fact)
WHERE f.embedding IS NOT NULL AND ($scopes IS NULL OR f.scope IN $scopes)
  AND ($all OR coalesce(f.embedder, '') <> $embedder) AND f.id > $after
RETURN count(f) AS n
