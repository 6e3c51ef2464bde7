// What comes back beside the hits. Turn window: for each hit with a session and turn, the
// adjacent turns of the same session (index fact_scope_session_turn). Shared tags: facts tagged
// like the hits. Filters as in search except tags; hits and excluded ids are left out.
CALL () {
  UNWIND $window AS h
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.session_id = h.session_id
    AND f.turn >= h.turn - $prev AND f.turn <= h.turn + $next
    AND f.status IN $statuses
    AND ($partitions IS NULL OR f.partition IN $partitions)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
    AND ($as_of IS NULL OR (f.valid_from <= $as_of AND (f.valid_to IS NULL OR $as_of < f.valid_to)))
    AND NOT f.id IN $hit_ids AND NOT f.id IN $exclude
  WITH f, h ORDER BY h.rank, f.turn
  WITH f, collect(h.id)[0] AS hit_id, min(h.rank) AS rank
  ORDER BY rank, f.turn
  RETURN collect({fact: f {.*, embedding: null, lexical_text: null}, hit_id: hit_id}) AS window
}
CALL () {
  WITH $tag_limit AS tag_limit
  WHERE tag_limit > 0
  UNWIND $tagged AS hit_id
  MATCH (h:Fact {id: hit_id})-[:TAGGED]->(t:Tag)<-[:TAGGED]-(f:Fact)
  WHERE h.scope = $scope AND f.scope = $scope
    AND f.status IN $statuses
    AND ($partitions IS NULL OR f.partition IN $partitions)
    AND (f.expires_at IS NULL OR f.expires_at > $now)
    AND ($as_of IS NULL OR (f.valid_from <= $as_of AND (f.valid_to IS NULL OR $as_of < f.valid_to)))
    AND NOT f.id IN $hit_ids AND NOT f.id IN $exclude
  WITH f, collect(DISTINCT hit_id)[0] AS hit_id, count(DISTINCT t) AS shared
  ORDER BY shared DESC, f.importance DESC, f.id
  LIMIT $tag_limit
  RETURN collect({fact: f {.*, embedding: null, lexical_text: null}, hit_id: hit_id}) AS tagged
}
RETURN window, tagged
