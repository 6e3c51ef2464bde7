// Page-cache warm-up (graph/platform/warmup.py): scan the range indexes a search seeks into after its
// index calls, so their pages are cached too: the facts' ids (the hits' whole facts, by id) and
// (scope, session, turn) (the turn window).
CALL () {
  MATCH (f:Fact) USING INDEX f:Fact(id)
  WHERE f.id IS NOT NULL
  RETURN count(*) AS ids
}
CALL () {
  MATCH (f:Fact) USING INDEX f:Fact(scope, session_id, turn)
  WHERE f.scope IS NOT NULL AND f.session_id IS NOT NULL AND f.turn IS NOT NULL
  RETURN count(*) AS turns
}
// `ids` is the entries read in both, what graph.platform.warmup.Warmup reports as index entries.
RETURN ids + turns AS ids
