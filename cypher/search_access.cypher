// Returned facts were used: count the access and move last_accessed_at (recency and decay
// count from it). Written in batches after the response, never on the search's own path.
// row.at is ISO text: the driver converts each Python datetime in Python, ~0.1 ms apiece,
// holding the GIL that the searches of the same process are waiting for.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.scope = row.scope
WITH f, row, datetime(row.at) AS at
SET f.access_count = coalesce(f.access_count, 0) + row.count,
    f.last_accessed_at = CASE
      WHEN f.last_accessed_at IS NULL OR f.last_accessed_at < at THEN at
      ELSE f.last_accessed_at END
