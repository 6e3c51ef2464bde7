// Hybrid search candidates on Neo4j 2026.01+, in one round trip: as cypher/search_candidates.cypher
// (the 5.26 query, whose comments explain the full-text lists, the fallbacks and the expansion),
// except for the vector list. Its candidates come from the SEARCH clause over the single index
// fact_embedding_filtered, which declares the scope and the status as filter properties: the
// index keeps the scope's facts of each status asked (one SEARCH per status, as an in-index
// filter takes one exact value), so there are no shards, no over-fetch by the scope's share and
// no exact scan for a scope small beside the store. The filters the index does not hold
// (partitions, tags, TTL, asOf, excludeIds) are still checked here, over $vec_fetch
// candidates; when they leave fewer than $k, the index is asked again $vec_retry wide, and then,
// as on 5.26, the rest is scored exactly (a pool under $exact_max) or asked $wide. The filters
// come in one map, $filter, as there.
CYPHER 25
// The rarest tag asked for: its degree is read from the Tag node's relationship counts, without
// touching the facts. No tag (or no vector): null.
CALL () {
  UNWIND CASE WHEN $vector IS NOT NULL THEN $filter.tags ELSE [] END AS name
  OPTIONAL MATCH (t:Tag {scope: $filter.scope, name: name})
  WITH t, CASE WHEN t IS NULL THEN 0 ELSE COUNT { (t)<-[:TAGGED]-() } END AS degree
  ORDER BY degree
  RETURN collect({tag: t, degree: degree})[0] AS rarest
}
WITH rarest, rarest IS NOT NULL AND rarest.degree < $tag_exact_max AS tag_exact
// The full-text lists, each asked of its own index the same way: the turn's own text
// (fact_fulltext_filtered, $text.lucene) and its passage (fact_passage_fulltext: each turn's text
// with its neighbours', graph/write/passages.py; $text.passage_lucene). A list whose query is empty is not
// asked. Each list comes back as {list, kept, exhaustive}, ranked and filtered.
CALL () {
  UNWIND [spec IN [
      {list: 'fulltext', index: 'fact_fulltext_filtered', query: $text.lucene, scoped: $text.lucene_scoped},
      {list: 'passage', index: 'fact_passage_fulltext', query: $text.passage_lucene,
       scoped: $text.passage_lucene_scoped}]
    WHERE spec.query <> ''] AS spec
  CALL (spec) {
    CALL db.index.fulltext.queryNodes(spec.index, spec.query, {limit: $fetch}) YIELD node, score
    WITH collect({f: node, score: score}) AS found
    CALL (found) {
      UNWIND found AS x
      WITH x.f AS f, x
      WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
        AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
        AND all(t IN $filter.tags WHERE t IN f.tags)
        AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
        AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
        AND NOT f.id IN $filter.exclude
      WITH x LIMIT $k
      RETURN collect(x) AS fast
    }
    RETURN size(found) AS raw, fast
  }
  // A short first call is asked again as deep as the share it kept says is needed (twice that,
  // for margin: 45 kept of 180 asks for 480), with the first call's query; only when that
  // would pass $wide, or still comes short with more matches left (mid null), the scoped
  // query is asked for up to $wide matches.
  CALL (spec, raw, fast) {
    WITH spec, raw, fast
    WHERE size(fast) < $k AND raw >= $fetch
    WITH spec, CASE WHEN size(fast) = 0 THEN $wide
              ELSE toInteger(ceil(2.0 * $k * raw / size(fast))) END AS wanted
    WITH spec, CASE WHEN wanted < $wide THEN wanted ELSE $wide END AS depth
    CALL db.index.fulltext.queryNodes(spec.index,
      CASE WHEN depth < $wide THEN spec.query ELSE spec.scoped END, {limit: depth}) YIELD node, score
    WITH depth, node AS f, score
    WITH min(depth) AS depth, count(*) AS deeper, collect(CASE WHEN f.scope = $filter.scope AND f.status IN $filter.statuses
      AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
      AND all(t IN $filter.tags WHERE t IN f.tags)
      AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
      AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
      AND NOT f.id IN $filter.exclude
      THEN {f: f, score: score} END) AS kept
    RETURN CASE WHEN depth < $wide AND size(kept) < $k AND deeper >= depth THEN null
                ELSE kept[..$k] END AS mid
  }
  CALL (spec, mid) {
    WITH spec, mid
    WHERE mid IS NULL
    CALL db.index.fulltext.queryNodes(spec.index, spec.scoped, {limit: $wide}) YIELD node, score
    WITH node AS f, score
    WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
      AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
      AND all(t IN $filter.tags WHERE t IN f.tags)
      AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
      AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
      AND NOT f.id IN $filter.exclude
    WITH f, score ORDER BY score DESC LIMIT $k
    RETURN collect({f: f, score: score}) AS slow
  }
  RETURN collect({list: spec.list,
    kept: CASE WHEN size(slow) > size(fast) THEN slow
               WHEN size(coalesce(mid, [])) > size(fast) THEN mid
               ELSE fast END,
    exhaustive: size(slow) > size(fast) OR size(coalesce(mid, [])) > size(fast)}) AS text_lists
}
CALL (tag_exact) {
  WITH $vector AS vector
  WHERE vector IS NOT NULL AND NOT tag_exact AND NOT $scope_exact
  UNWIND $filter.statuses AS status
  CALL (status) {
    MATCH (f:Fact)
      SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vector
        WHERE f.scope = $filter.scope AND f.status = status LIMIT $vec_fetch) SCORE AS score
    RETURN f, score
  }
  WITH f, score ORDER BY score DESC
  WITH collect({f: f, score: score}) AS found
  CALL (found) {
    UNWIND found AS x
    WITH x.f AS f, x
    WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
      AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
      AND all(t IN $filter.tags WHERE t IN f.tags)
      AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
      AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
      AND NOT f.id IN $filter.exclude
    WITH x LIMIT $k
    RETURN collect(x) AS vec_first
  }
  RETURN size(found) AS vec_raw, vec_first
}
// Filters the index does not hold left fewer than $k of the first $vec_fetch: the index is
// asked once more, $vec_retry wide, before the exact scan below. Only when the first call came
// back full, so the index holds more, and the retry is wider.
CALL (vec_raw, vec_first) {
  WITH vec_raw, vec_first
  WHERE size(vec_first) < $k AND vec_raw >= $vec_fetch AND $vec_retry > $vec_fetch
  UNWIND $filter.statuses AS status
  CALL (status) {
    MATCH (f:Fact)
      SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vector
        WHERE f.scope = $filter.scope AND f.status = status LIMIT $vec_retry) SCORE AS score
    RETURN f, score
  }
  WITH f, score
  WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(t IN $filter.tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  WITH f, score ORDER BY score DESC LIMIT $k
  RETURN collect({f: f, score: score}) AS vec_retried
}
WITH *, CASE WHEN size(vec_retried) > size(vec_first) THEN vec_retried ELSE vec_first END AS vec_fast
// The gates below are values, not WHERE clauses: a seek keyed on a null gate finds nothing,
// whereas the planner may run an unconditional seek first and filter on the condition later.
// The pool an exact vector score would scan, gathered once (at most $exact_max facts): the
// facts of the rarest tag asked for (its Tag node links exactly the facts that carry it), else
// the scope's live facts. Testing every fact of the scope for a tag reads each one's
// properties, ~40 ms per 1,000 facts.
CALL (vec_fast, rarest) {
  WITH CASE WHEN $vector IS NOT NULL AND size(vec_fast) < $k THEN $filter.scope END AS gate
  CALL (gate, rarest) {
    WITH CASE WHEN gate IS NOT NULL THEN rarest.tag END AS tag
    MATCH (tag)<-[:TAGGED]-(f:Fact)
    RETURN f
    UNION ALL
    WITH CASE WHEN size($filter.tags) = 0 THEN gate END AS scope_gate
    MATCH (f:Fact)
    WHERE f.scope = scope_gate AND f.status IN $filter.statuses
    RETURN f
  }
  WITH f LIMIT $exact_max
  RETURN collect(f) AS pool
}
CALL (vec_fast, pool) {
  UNWIND CASE WHEN size(vec_fast) < $k AND size(pool) < $exact_max THEN pool ELSE [] END AS f
  WITH f
  WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(t IN $filter.tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
    AND f.embedding IS NOT NULL
  WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
  ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS vec_slow
}
CALL (vec_fast, pool) {
  WITH vec_fast, pool
  WHERE size(vec_fast) < $k AND size(pool) >= $exact_max
  UNWIND $filter.statuses AS status
  CALL (status) {
    MATCH (f:Fact)
      SEARCH f IN (VECTOR INDEX fact_embedding_filtered FOR $vector
        WHERE f.scope = $filter.scope AND f.status = status LIMIT $wide) SCORE AS score
    RETURN f, score
  }
  WITH f, score
  WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(t IN $filter.tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  WITH f, score ORDER BY score DESC LIMIT $k
  RETURN collect({f: f, score: score}) AS vec_wide
}
// Chunks: the windows of a long text after its first (graph/write/chunks.py), each a :Chunk
// with its own vector, linked CHUNK_OF to its fact. A fact's vector score is the best of its
// own vector's (its first window) and its chunks' (merged below); a chunk counts only through
// its fact, under the fact's filters, so a forgotten or superseded fact's chunks never
// surface. A scope of short texts has none, which one seek of the chunk_scope index says:
// then no chunk index is asked (its shard may hold other scopes' chunks) and nothing below runs.
CALL () {
  RETURN EXISTS { MATCH (c:Chunk) WHERE c.scope = $filter.scope } AS chunked
}
CALL (tag_exact, chunked) {
  WITH $vector AS vector
  WHERE chunked AND vector IS NOT NULL AND NOT tag_exact AND NOT $scope_exact
  MATCH (c:Chunk)
    SEARCH c IN (VECTOR INDEX chunk_embedding_filtered FOR $vector
      WHERE c.scope = $filter.scope LIMIT $chunk_fetch) SCORE AS score
  WITH count(*) AS raw, collect({c: c, score: score}) AS mine
  CALL (mine) {
    UNWIND mine AS x
    WITH x.c AS c, x.score AS score
    MATCH (c)-[:CHUNK_OF]->(f:Fact)
    WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
      AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
      AND all(t IN $filter.tags WHERE t IN f.tags)
      AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
      AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
      AND NOT f.id IN $filter.exclude
    RETURN collect({f: f, score: score}) AS kept
  }
  RETURN raw AS chunk_raw, kept AS chunk_first
}
// Fewer than $k chunks kept while the index holds more: the filters kept few of the scope's
// chunks. Then its chunks are scored exactly (a pool of fewer than $exact_max, found by the
// chunk_scope index), else the index is asked $wide deep.
CALL (chunk_raw, chunk_first) {
  WITH CASE WHEN size(chunk_first) < $k AND chunk_raw >= $chunk_fetch THEN $filter.scope END AS gate
  MATCH (c:Chunk)
  WHERE c.scope = gate
  WITH c LIMIT $exact_max
  RETURN collect(c) AS chunk_pool
}
CALL (chunk_pool) {
  UNWIND CASE WHEN size(chunk_pool) < $exact_max THEN chunk_pool ELSE [] END AS c
  MATCH (c)-[:CHUNK_OF]->(f:Fact)
  WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(t IN $filter.tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  WITH f, max(vector.similarity.cosine(c.embedding, $vector)) AS score
  ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS chunk_slow
}
CALL (chunk_pool) {
  WITH chunk_pool
  WHERE size(chunk_pool) >= $exact_max
  MATCH (c:Chunk)
    SEARCH c IN (VECTOR INDEX chunk_embedding_filtered FOR $vector
      WHERE c.scope = $filter.scope LIMIT $wide) SCORE AS score
  WITH c, score
  MATCH (c)-[:CHUNK_OF]->(f:Fact)
  WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(t IN $filter.tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  WITH f, max(score) AS score
  ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS chunk_wide
}
// When the facts were scored exactly (the pool above), their chunks are too.
CALL (vec_fast, pool, chunked) {
  UNWIND CASE WHEN chunked AND size(vec_fast) < $k AND size(pool) < $exact_max THEN pool
              ELSE [] END AS f
  MATCH (f)<-[:CHUNK_OF]-(c:Chunk)
  WHERE f.scope = $filter.scope AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(t IN $filter.tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  WITH f, max(vector.similarity.cosine(c.embedding, $vector)) AS score
  ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS chunk_exact
}
WITH *, chunk_first + chunk_slow + chunk_wide + chunk_exact AS chunk_hits
WITH [l IN text_lists WHERE l.list = 'fulltext' | l][0] AS ft_list,
     [l IN text_lists WHERE l.list = 'passage' | l][0] AS ps_list,
     CASE WHEN size(vec_slow) > size(vec_fast) THEN vec_slow
          WHEN size(vec_wide) > size(vec_fast) THEN vec_wide
          ELSE vec_fast END AS vec,
     size(vec_slow) > size(vec_fast) AS vec_exact, chunk_hits, chunked
WITH coalesce(ft_list.kept, []) AS ft, coalesce(ps_list.kept, []) AS ps, vec,
     coalesce(ft_list.exhaustive, false) AS ft_exhaustive, vec_exact, chunk_hits, chunked
// The vector list with the chunks' facts: each fact once, at the best of its scores, a
// chunk's less $chunk_discount: a long answer has many windows, each one more chance to lie
// near a question by accident, so a later window must match clearly better than the fact's
// first one to speak for it (graph/search/options.py, DEFAULT_CHUNK_DISCOUNT).
CALL (vec, chunk_hits) {
  UNWIND CASE WHEN size(chunk_hits) > 0
    THEN vec + [h IN chunk_hits | {f: h.f, score: h.score - $chunk_discount}] ELSE [] END AS x
  WITH x.f AS f, max(x.score) AS score
  ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS vec_chunked
}
WITH ft, ps, CASE WHEN size(chunk_hits) > 0 THEN vec_chunked ELSE vec END AS vec,
     ft_exhaustive, vec_exact, chunked
CALL (ft, vec) {
  WITH ft, vec
  WHERE $hops > 0
  UNWIND ft[..$seeds] + vec[..$seeds] AS seed
  WITH DISTINCT seed.f AS s
  MATCH (s)-[:MENTIONS]->(e:Entity)
  WITH e, collect(s) AS mentioned_by
  // A person or place can be mentioned by thousands of facts: follow each entity to its $k
  // most recent mentions only (relationship chains are newest first), so the cost is bounded.
  CALL (e) {
    MATCH (e)<-[:MENTIONS]-(f:Fact)
    WITH f LIMIT $k
    RETURN f
  }
  UNWIND mentioned_by AS s
  WITH s, e, f
  WHERE f <> s AND f.scope = $filter.scope AND f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(t IN $filter.tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  WITH f, count(DISTINCT s) AS seeds, count(DISTINCT e) AS entities
  ORDER BY seeds DESC, entities DESC, f.id LIMIT $k
  RETURN collect({f: f, score: toFloat(seeds)}) AS graph
}
CALL (ft, ps, vec, graph) {
  UNWIND ft + ps + vec + graph AS x
  WITH DISTINCT x.f AS n
  // `matched`: which of the query's word stems ($text.stems) the fact's lowercased text holds
  // at a word's start, by their index: what its relevance reads instead of BM25, whose word
  // weights come from every scope's facts (graph/search/lexical.py).
  WITH n, CASE WHEN size($text.stems) > 0
    THEN ' ' + replace(coalesce(n.lexical_text, toLower(n.text)), '\n', ' ') END AS hay
  WITH n, [i IN range(0, size($text.stems) - 1) WHERE hay CONTAINS (' ' + $text.stems[i])]
    AS matched
  // $full: the whole fact (named properties, as in search_related.cypher), for a reranker
  // that reads the facts. Otherwise only what ranking reads (~8 ms less at 100,000 facts); the
  // hits' own properties come with the related round trip (search_related.cypher).
  // Datetimes as strings: the Python driver's DateTime hydration costs ~0.1 ms per value,
  // more than the index calls for ~100 candidates; graph.write.facts parses the ISO text.
  RETURN collect(CASE WHEN $full THEN n {.id, .scope, .partition, .text, .index_text,
    .subject, .predicate, .object, .tags, .importance, .source, .metadata, .session_id, .turn,
    .content_hash, .standing, .embedder, .status, .strength, .access_count,
    valid_from: toString(n.valid_from), valid_to: toString(n.valid_to),
    recorded_at: toString(n.recorded_at), updated_at: toString(n.updated_at),
    expired_at: toString(n.expired_at), expires_at: toString(n.expires_at),
    last_accessed_at: toString(n.last_accessed_at), matched: matched}
    ELSE n {.id, .importance, .strength, .subject, chars: size(n.text),
    recorded_at: toString(n.recorded_at), last_accessed_at: toString(n.last_accessed_at),
    matched: matched} END)
    AS facts
}
// The vector score of every candidate the vector list did not return (the best of its own
// vector's and its chunks'), so that each candidate has the same signals for its relevance
// (graph/search/relevance.py), wherever it came from.
CALL (ft, ps, vec, graph, chunked) {
  WITH [v IN vec | v.f] AS found, ft + ps + graph AS others
  UNWIND CASE WHEN $vector IS NOT NULL THEN others ELSE [] END AS x
  WITH DISTINCT x.f AS n, found
  WHERE NOT n IN found AND n.embedding IS NOT NULL
  WITH n, vector.similarity.cosine(n.embedding, $vector) AS own,
       CASE WHEN chunked THEN COLLECT { MATCH (n)<-[:CHUNK_OF]-(c:Chunk)
         RETURN vector.similarity.cosine(c.embedding, $vector) } ELSE [] END AS windows
  RETURN collect({id: n.id, score: reduce(best = own, s IN windows |
    CASE WHEN s - $chunk_discount > best THEN s - $chunk_discount ELSE best END)}) AS cosines
}
RETURN [x IN ft | {id: x.f.id, score: x.score}] AS fulltext,
       [x IN vec | {id: x.f.id, score: x.score}] AS vector,
       [x IN graph | {id: x.f.id, score: x.score}] AS graph,
       [x IN ps | {id: x.f.id, score: x.score}] AS passage,
       facts, cosines, ft_exhaustive, vec_exact
