// Which models the stored vectors come from, and how many facts have none (a Cypher load not
// yet completed by `factgraph embed --missing`).
MATCH (f:Fact)
WHERE $scopes IS NULL OR f.scope IN $scopes
RETURN CASE WHEN f.embedding IS NULL THEN null ELSE coalesce(f.embedder, 'unknown') END AS embedder,
       count(f) AS n
ORDER BY embedder
