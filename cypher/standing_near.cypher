// The scope's active standing statements (:Standing, graph/reading/standing.py) by their vector's
// similarity to $vector (the vector index's scale, (1 + cosine) / 2), best first: a revocation
// retires the one it names (graph/write/pipeline.py), and a search returns those that bear on
// its query (graph/search/standing.py). A scope holds few of them, so every one is scored
// exactly, found by the fact_standing index; $limit caps what comes back. The scope travels in
// a map, $ask, so that its name's length does not key the plan cache (as search's $filter).
// $relative is the query's vector less the model's background centroid and $lift the floor on
// its similarity (graph/search/standing.py): 0.0 keeps every statement.
MATCH (f:Standing)
WHERE f.scope = $ask.scope AND f.status = 'active' AND f.embedding IS NOT NULL
  AND (f.expires_at IS NULL OR f.expires_at > $now)
WITH f, vector.similarity.cosine(f.embedding, $vector) AS score,
  vector.similarity.cosine(f.embedding, $relative) AS lift
WHERE score >= $floor AND lift >= $lift
ORDER BY score DESC, f.id
LIMIT $limit
RETURN f {.id, .scope, .partition, .text, .index_text, .subject, .predicate, .object, .tags,
  .importance, .source, .metadata, .session_id, .turn, .content_hash, .embedder, .status,
  .strength, .access_count, .standing,
  valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
  recorded_at: toString(f.recorded_at), updated_at: toString(f.updated_at),
  expired_at: toString(f.expired_at), expires_at: toString(f.expires_at),
  last_accessed_at: toString(f.last_accessed_at)} AS fact, score
