// Facts per scope and status, for `factgraph stats`.
MATCH (f:Fact)
WHERE $scopes IS NULL OR f.scope IN $scopes
RETURN f.scope AS scope, coalesce(f.status, 'unknown') AS status, count(f) AS n
ORDER BY scope, status
