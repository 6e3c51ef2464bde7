// Hybrid search candidates in one round trip: full-text (fact_fulltext_scoped; $lucene carries
// a zero-weight scope clause) and vector lists from Neo4j's own indexes, filtered (scope, status, partitions, tags, TTL, asOf, excludeIds), and optionally an
// entity-expansion list. Neo4j 5.26 vector (and full-text) queries cannot pre-filter, so each
// index is over-fetched ($fetch) and filtered; when that leaves fewer than $k candidates the
// filter was selective and the list is recomputed exactly over the filtered set (every
// full-text match; cosine over the scope's facts), so results never come back short.
// Returns ranked {id, score} lists and each candidate fact once, without its embedding.
CALL () {
  WITH $lucene AS lucene
  WHERE lucene <> ''
  CALL db.index.fulltext.queryNodes('fact_fulltext_scoped', lucene, {limit: $fetch}) YIELD node, score
  WITH node AS f, score
  WITH count(*) AS raw, collect(CASE WHEN f.scope = $scope AND f.status IN $statuses
    AND ($partitions IS NULL OR f.partition IN $partitions)
    AND all(t IN $tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
    AND ($as_of IS NULL OR (f.valid_from <= $as_of AND (f.valid_to IS NULL OR $as_of < f.valid_to)))
    AND NOT f.id IN $exclude
    THEN {f: f, score: score} END) AS kept
  RETURN raw AS ft_raw, kept[..$k] AS ft_fast
}
CALL (ft_raw, ft_fast) {
  WITH ft_raw, ft_fast
  WHERE size(ft_fast) < $k AND ft_raw >= $fetch
  CALL db.index.fulltext.queryNodes('fact_fulltext_scoped', $lucene) YIELD node, score
  WITH node AS f, score
  WHERE f.scope = $scope AND f.status IN $statuses
    AND ($partitions IS NULL OR f.partition IN $partitions)
    AND all(t IN $tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
    AND ($as_of IS NULL OR (f.valid_from <= $as_of AND (f.valid_to IS NULL OR $as_of < f.valid_to)))
    AND NOT f.id IN $exclude
  WITH f, score ORDER BY score DESC LIMIT $k
  RETURN collect({f: f, score: score}) AS ft_slow
}
CALL () {
  WITH $vector AS vector
  WHERE vector IS NOT NULL
  CALL db.index.vector.queryNodes('fact_embedding', $fetch, vector) YIELD node, score
  WITH node AS f, score
  WITH count(*) AS raw, collect(CASE WHEN f.scope = $scope AND f.status IN $statuses
    AND ($partitions IS NULL OR f.partition IN $partitions)
    AND all(t IN $tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
    AND ($as_of IS NULL OR (f.valid_from <= $as_of AND (f.valid_to IS NULL OR $as_of < f.valid_to)))
    AND NOT f.id IN $exclude
    THEN {f: f, score: score} END) AS kept
  RETURN raw AS vec_raw, kept[..$k] AS vec_fast
}
CALL (vec_fast) {
  WITH vec_fast
  WHERE $vector IS NOT NULL AND size(vec_fast) < $k
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.status IN $statuses
    AND ($partitions IS NULL OR f.partition IN $partitions)
    AND all(t IN $tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
    AND ($as_of IS NULL OR (f.valid_from <= $as_of AND (f.valid_to IS NULL OR $as_of < f.valid_to)))
    AND NOT f.id IN $exclude
    AND f.embedding IS NOT NULL
  WITH f, vector.similarity.cosine(f.embedding, $vector) AS score
  ORDER BY score DESC, f.id LIMIT $k
  RETURN collect({f: f, score: score}) AS vec_slow
}
WITH CASE WHEN size(ft_slow) > size(ft_fast) THEN ft_slow ELSE ft_fast END AS ft,
     CASE WHEN size(vec_slow) > 0 THEN vec_slow ELSE vec_fast END AS vec,
     size(ft_slow) > size(ft_fast) AS ft_exhaustive,
     size(vec_slow) > 0 AS vec_exact
CALL (ft, vec) {
  WITH ft, vec
  WHERE $hops > 0
  UNWIND ft[..$seeds] + vec[..$seeds] AS seed
  WITH DISTINCT seed.f AS s
  MATCH (s)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(f:Fact)
  WHERE f <> s AND f.scope = $scope AND f.status IN $statuses
    AND ($partitions IS NULL OR f.partition IN $partitions)
    AND all(t IN $tags WHERE t IN f.tags)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
    AND ($as_of IS NULL OR (f.valid_from <= $as_of AND (f.valid_to IS NULL OR $as_of < f.valid_to)))
    AND NOT f.id IN $exclude
  WITH f, count(DISTINCT s) AS seeds, count(DISTINCT e) AS entities
  ORDER BY seeds DESC, entities DESC, f.id LIMIT $k
  RETURN collect({f: f, score: toFloat(seeds)}) AS graph
}
CALL (ft, vec, graph) {
  UNWIND ft + vec + graph AS x
  WITH DISTINCT x.f AS n
  RETURN collect(n {.*, embedding: null, lexical_text: null}) AS facts
}
RETURN [x IN ft | {id: x.f.id, score: x.score}] AS fulltext,
       [x IN vec | {id: x.f.id, score: x.score}] AS vector,
       [x IN graph | {id: x.f.id, score: x.score}] AS graph,
       facts, ft_exhaustive, vec_exact
