// The next facts without a vector (loaded by a Cypher job, e.g. cypher/import_template_*.cypher);
// $skip holds the ids found invalid in this run, so they are reported once, not retried forever.
MATCH (f:Fact)
WHERE f.embedding IS NULL AND f.id IS NOT NULL AND ($scopes IS NULL OR f.scope IN $scopes)
  AND NOT f.id IN $skip
RETURN f {.*} AS props
LIMIT $limit
