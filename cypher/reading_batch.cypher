// `factgraph read-texts`: the next facts by id after $after, of $scopes or all ($scopes null),
// each with whether it is due a reading: never read, or read by a reader older than $version
// (-1 reads every fact again).
MATCH (f:Fact)
WHERE f.id > $after AND ($scopes IS NULL OR f.scope IN $scopes)
WITH f ORDER BY f.id LIMIT $limit
RETURN f.id AS id, f.text AS text, f.subject AS subject,
       $version < 0 OR coalesce(f.read_v, 0) < $version AS due
