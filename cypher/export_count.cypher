// How many facts an export will write (for its progress bar).
MATCH (f:Fact)
WHERE $scopes IS NULL OR f.scope IN $scopes
RETURN count(f) AS n
