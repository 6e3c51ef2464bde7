// Turns without a passage (written by a Cypher job, e.g. cypher/import_template_*.cypher):
// graph/write/passages.py refreshes their slots, which sets it.
MATCH (f:Fact)
WHERE f.passage_text IS NULL AND f.session_id IS NOT NULL AND f.turn IS NOT NULL
  AND f.text IS NOT NULL AND ($scopes IS NULL OR f.scope IN $scopes)
RETURN f {.scope, .session_id, .turn} AS props
LIMIT $limit
