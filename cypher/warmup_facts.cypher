// Page-cache warm-up (graph/platform/warmup.py): read, once, the properties of every fact that a search
// reads back (search_candidates.cypher's ranking fields, search_related.cypher's whole fact),
// so the first searches after a start find the node and property stores in Neo4j's page cache
// instead of reading them from disk one fact at a time. The embedding is left out: search
// never reads it from the store (the vector indexes hold their own copy).
MATCH (f:Fact)
RETURN count(f {.id, .scope, .partition, .text, .index_text, .subject, .predicate, .object,
  .tags, .importance, .source, .metadata, .session_id, .turn, .content_hash, .standing, .embedder,
  .status, .strength, .access_count, .valid_from, .valid_to, .recorded_at, .updated_at,
  .expired_at, .expires_at, .last_accessed_at, .passage_text}) AS facts
