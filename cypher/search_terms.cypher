// The graph list of a search (graph/search/graph_list.py): facts that mention what the query
// names, is about or identifies, and the facts the best hits share their specific terms and
// their turns with (spreading activation, one hop, decaying).
// Direct: each query term ($g.terms: {canonical, weight}) found in the scope adds, to each fact
// mentioning it, query weight x mention weight x log((live + 1) / facts mentioning the term):
// "user" or "thing", mentioned everywhere, weighs next to nothing, "Flask" or "Stephen" much.
// A term mentioned by more than $max_df facts is skipped, and each term is followed to at most
// $fanout facts, so the cost is bounded as the entity expansion's is.
// Spread: from the seeds ($g.seeds: {id, a}, the best of the other lists, and the best direct
// hits), through each seed's terms mentioned by 2..$max_df facts, to their facts (activation
// x $decay x the term's weight), and to the turns of the seed's session within $turns (activation
// x $decay x $turn_decay).
CALL () {
  UNWIND $g.terms AS q
  MATCH (t:Term {scope: $filter.scope, canonical: q.canonical})
  WITH t, q, COUNT { (t)<-[:MENTIONS]-() } AS df
  WHERE df <= $max_df
  WITH t, q.weight * log(($live + 1.0) / df) AS idf
  CALL (t) {
    MATCH (t)<-[m:MENTIONS]-(f:Fact)
    RETURN f, m.weight AS w LIMIT $fanout
  }
  WITH f, sum(idf * w) AS score
  WHERE f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(tag IN $filter.tags WHERE tag IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of
         AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  WITH f, score ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS direct
}
CALL (direct) {
  WITH direct, CASE WHEN size(direct) > 0 THEN direct[0].score ELSE 1.0 END AS best
  CALL (direct, best) {
    UNWIND direct[..$seed_count] AS x
    RETURN x.f AS s, x.score / best AS a
    UNION
    UNWIND $g.seeds AS seed
    MATCH (s:Fact {id: seed.id})
    RETURN s, seed.a AS a
  }
  WITH s, max(a) AS a
  CALL (s, a) {
    MATCH (s)-[m1:MENTIONS]->(t:Term)
    WITH t, m1, COUNT { (t)<-[:MENTIONS]-() } AS df
    WHERE 1 < df <= $max_df
    WITH t, m1.weight * log(($live + 1.0) / df) AS idf
    CALL (t) {
      MATCH (t)<-[m:MENTIONS]-(f:Fact)
      RETURN f, m.weight AS w LIMIT $fanout
    }
    RETURN f, a * $decay * idf * w AS via
    UNION ALL
    WITH s WHERE $turns > 0 AND s.session_id IS NOT NULL AND s.turn IS NOT NULL
    MATCH (f:Fact {scope: $filter.scope, session_id: s.session_id})
    WHERE s.turn - $turns <= f.turn <= s.turn + $turns
    RETURN f, a * $decay * $turn_decay AS via
  }
  WITH s, f, via WHERE f <> s
  WITH f, sum(via) AS score
  WHERE f.status IN $filter.statuses
    AND ($filter.partitions IS NULL OR f.partition IN $filter.partitions)
    AND all(tag IN $filter.tags WHERE tag IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $filter.now)
    AND ($filter.as_of IS NULL OR (f.valid_from <= $filter.as_of
         AND (f.valid_to IS NULL OR $filter.as_of < f.valid_to)))
    AND NOT f.id IN $filter.exclude
  RETURN collect({f: f, score: score}) AS spread
}
CALL (direct, spread) {
  UNWIND direct + spread AS x
  WITH x.f AS f, sum(x.score) AS score
  ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS found
}
// What ranking reads of each fact, as cypher/search_candidates.cypher ships it (briefs only).
CALL (found) {
  UNWIND found AS x
  WITH x.f AS n
  WITH n, CASE WHEN size($g.stems) > 0
    THEN ' ' + replace(coalesce(n.lexical_text, toLower(n.text)), '\n', ' ') END AS hay
  WITH n, [i IN range(0, size($g.stems) - 1) WHERE hay CONTAINS (' ' + $g.stems[i])] AS matched
  RETURN collect(n {.id, .importance, .strength, .subject, chars: size(n.text),
    recorded_at: toString(n.recorded_at), last_accessed_at: toString(n.last_accessed_at),
    matched: matched,
    cosine: CASE WHEN $vector IS NOT NULL AND n.embedding IS NOT NULL
      THEN vector.similarity.cosine(n.embedding, $vector) END}) AS facts
}
RETURN [x IN found | {id: x.f.id, score: x.score}] AS terms, facts
