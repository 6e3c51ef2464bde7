// Page-cache warm-up (graph/platform/warmup.py): walk every fact's tags and entities, as a search's
// shared-tag and entity expansions do (search_related.cypher, search_candidates.cypher), so
// the relationship store's pages and the tags' and entities' nodes are cached.
CALL () {
  MATCH (:Fact)-[:TAGGED]->(t:Tag)
  RETURN count(t.name) AS tagged
}
CALL () {
  MATCH (:Fact)-[:MENTIONS]->(e:Entity)
  RETURN count(e.canonical) AS mentions
}
RETURN tagged + mentions AS links
