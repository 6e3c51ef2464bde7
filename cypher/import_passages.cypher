// Rebuild the passages a fast-import batch reaches (graph/write/passages.py refresh_sessions): the
// same passages cypher/fact_passages_refresh.cypher builds, slot by slot, but with one index
// seek per session of the batch instead of two per slot. Each session's facts from
// $radius * 2 turns before its first slot to as many after its last are read once, in turn
// order; every fact within $radius turns of a slot gets its passage from that list. A passage
// that comes out the same is not rewritten (no full-text index update for it).
// $sessions: [{session_id, turns: [turn, ...]}] for one $scope.
UNWIND $sessions AS s
WITH s, reduce(lo = s.turns[0], t IN s.turns | CASE WHEN t < lo THEN t ELSE lo END) AS first,
     reduce(hi = s.turns[0], t IN s.turns | CASE WHEN t > hi THEN t ELSE hi END) AS last
MATCH (n:Fact)
WHERE n.scope = $scope AND n.session_id = s.session_id
  AND n.turn >= first - 2 * $radius AND n.turn <= last + 2 * $radius
WITH s, n ORDER BY n.turn, n.recorded_at
WITH s, collect(n) AS facts
UNWIND facts AS f
WITH facts, f
WHERE any(t IN s.turns WHERE f.turn >= t - $radius AND f.turn <= t + $radius)
WITH f, [n IN facts WHERE n.turn >= f.turn - $radius AND n.turn <= f.turn + $radius
          AND n.turn <> f.turn AND n.status = 'active'] AS around
WITH f, [n IN around WHERE n.turn < f.turn | n.text] + [f.text]
  + [n IN around WHERE n.turn > f.turn | n.text] AS parts
WITH f, substring(reduce(acc = '', part IN parts | acc + ' ' + toString(part)), 1) AS passage
CALL (f, passage) {
  WITH f, passage WHERE f.passage_text IS NULL OR f.passage_text <> passage
  SET f.passage_text = passage
}
RETURN count(f) AS refreshed
