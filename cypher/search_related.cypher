// The hits' whole facts ($hits.hydrate: those the candidate query sent as briefs), and what comes
// back beside the hits, in one round trip. Turn window ($hits.window: the hits, ranked): for each hit
// with a session and turn, the adjacent turns of the same session (index
// fact_scope_session_turn). Shared tags ($hits.tagged: the hits' ids): facts tagged like the hits
// (among each tag's most recent $per_tag facts). Briefs carry neither sessions nor tags, so
// both are read here, from the hits themselves. Filters as in search except
// tags; hits and excluded ids are left out.
// The five lists come in one map, $hits, and the filters in $filter, so that how many hits a
// search has, or the scope's name, does not key the plan cache (graph/search/related.py).
// Facts come back as the properties graph.write.facts.Fact reads, named one by one: `f {.*}` would
// also read each fact's embedding (~3 KB from the array store) only to drop it.
CALL () {
  UNWIND $hits.window AS h
  MATCH (hit:Fact {id: h.id})
  WHERE hit.scope = $filter.scope AND hit.session_id IS NOT NULL AND hit.turn IS NOT NULL
  WITH h, hit.session_id AS session_id, hit.turn AS turn
  MATCH (f:Fact)
  WHERE f.scope = $filter.scope AND f.session_id = session_id
    AND f.turn >= turn - $prev AND f.turn <= turn + $next
    AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $hits.hit_ids AND NOT f.id IN $filter.exclude
  WITH f, h ORDER BY h.rank, f.turn
  WITH f, collect(h.id)[0] AS hit_id, min(h.rank) AS rank
  ORDER BY rank, f.turn
  RETURN collect({f: f, hit_id: hit_id}) AS window
}
CALL () {
  WITH $tag_limit AS tag_limit
  WHERE tag_limit > 0
  UNWIND range(0, size($hits.tagged) - 1) AS rank
  MATCH (h:Fact {id: $hits.tagged[rank]})-[:TAGGED]->(t:Tag)
  WHERE h.scope = $filter.scope
  WITH t, min(rank) AS rank
  // A tag may be on tens of thousands of facts: look at its $per_tag most recently tagged
  // ones (relationship chains are newest first), so the cost stays bounded as a scope grows.
  CALL (t) {
    MATCH (t)<-[:TAGGED]-(f:Fact)
    WITH f LIMIT $per_tag
    RETURN f
  }
  // Ordered first, filtered after: the filters read only a fact's own properties, so they
  // keep the same facts either way, but read them of the first few in order (until $tag_limit
  // pass) instead of each of the ~150 tagged facts: 0.8 ms less per search at 100,000 facts
  // (bench/README "Filters read lazily").
  WITH f, min(rank) AS rank, count(DISTINCT t) AS shared
  ORDER BY shared DESC, f.importance DESC, f.id
  WITH f, rank
  WHERE f.scope = $filter.scope
    AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $hits.hit_ids AND NOT f.id IN $filter.exclude
  WITH f, rank
  LIMIT $tag_limit
  RETURN collect({f: f, hit_id: $hits.tagged[rank]}) AS tagged
}
CALL () {
  UNWIND $hits.hydrate AS hit_id
  MATCH (f:Fact {id: hit_id})
  WHERE f.scope = $filter.scope
  RETURN collect({f: f, hit_id: hit_id}) AS hits
}
// The query vector's score of the hits the vector list did not find ($hits.cosine, with
// $vector; as search_cosines.cypher scores them): a search that neither thresholds nor orders
// by relevance reads these of its returned hits only (search_candidates.cypher $every_cosine).
CALL () {
  UNWIND CASE WHEN $vector IS NULL THEN [] ELSE $hits.cosine END AS hit_id
  MATCH (f:Fact {id: hit_id})
  WHERE f.scope = $filter.scope AND f.embedding IS NOT NULL
  WITH f, vector.similarity.cosine(f.embedding, $vector) AS own,
       COLLECT { MATCH (f)<-[:CHUNK_OF]-(c:Chunk) RETURN vector.similarity.cosine(c.embedding, $vector) } AS windows
  RETURN collect({id: f.id, score: reduce(best = own, s IN windows |
    CASE WHEN s - $chunk_discount > best THEN s - $chunk_discount ELSE best END)}) AS cosines
}
// One list of rows, in this order: the hits, the turn window, the shared tags. Each fact is
// projected here, once, and datetimes as strings (see search_candidates.cypher).
CALL (hits, window, tagged) {
  UNWIND [x IN hits | x {.*, kind: 'hit'}] + [x IN window | x {.*, kind: 'turn_window'}]
    + [x IN tagged | x {.*, kind: 'shared_tag'}] AS row
  WITH row, row.f AS f
  RETURN collect({kind: row.kind, hit_id: row.hit_id, fact: f {.id, .scope, .partition, .text,
      .index_text, .subject, .predicate, .object, .tags, .importance, .source, .metadata,
      .session_id, .turn, .content_hash, .standing, .embedder, .status, .strength, .access_count,
      valid_from: toString(f.valid_from), valid_to: toString(f.valid_to),
      recorded_at: toString(f.recorded_at), updated_at: toString(f.updated_at),
      expired_at: toString(f.expired_at), expires_at: toString(f.expires_at),
      last_accessed_at: toString(f.last_accessed_at)}}) AS rows
}
RETURN rows, cosines
