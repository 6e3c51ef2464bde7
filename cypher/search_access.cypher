// Returned facts were used: count the access and move last_accessed_at (recency and decay
// count from it). Written in batches after the response, never on the search's own path.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.scope = row.scope
SET f.access_count = coalesce(f.access_count, 0) + row.count,
    f.last_accessed_at = CASE
      WHEN f.last_accessed_at IS NULL OR f.last_accessed_at < row.at THEN row.at
      ELSE f.last_accessed_at END
