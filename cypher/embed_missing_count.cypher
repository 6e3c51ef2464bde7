// Facts a Cypher job loaded without the derived parts (no vector yet), for the progress bar.
MATCH (f:Fact)
WHERE f.embedding IS NULL AND f.id IS NOT NULL AND ($scopes IS NULL OR f.scope IN $scopes)
RETURN count(f) AS n
