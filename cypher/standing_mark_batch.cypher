// `factgraph mark-standing`: the next facts by id after $after (every status: a superseded or
// forgotten standing statement keeps its kind for history and the Browser), of $scopes or all
// ($scopes null), with what the standing recogniser reads (the text, and the vector with the
// model that made it) and what is stored now.
MATCH (f:Fact)
WHERE f.id > $after AND ($scopes IS NULL OR f.scope IN $scopes)
WITH f ORDER BY f.id LIMIT $limit
RETURN f.id AS id, f.text AS text, f.subject AS subject, f.standing AS standing,
  f.embedding AS embedding, f.embedder AS embedder
