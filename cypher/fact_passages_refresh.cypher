// Rebuild the passage text of the turns around the given slots ($slots: [{session_id, turn}]).
// A turn's passage is its own text between the texts of the ACTIVE turns of its session up to
// $radius turns before and after it, in turn order: what a reader of the conversation sees
// around it. Quarantined, forgotten and superseded turns are never part of another turn's
// passage (their text must not make a live fact match). Called whenever a turn is written or
// changes status, for that turn's slot: every passage that could include it is rebuilt.
UNWIND $slots AS slot
MATCH (f:Fact)
WHERE f.scope = $scope AND f.session_id = slot.session_id
  AND f.turn >= slot.turn - $radius AND f.turn <= slot.turn + $radius
WITH DISTINCT f
CALL (f) {
  OPTIONAL MATCH (n:Fact)
  WHERE n.scope = f.scope AND n.session_id = f.session_id
    AND n.turn >= f.turn - $radius AND n.turn <= f.turn + $radius
    AND n.turn <> f.turn AND n.status = 'active'
  WITH n ORDER BY n.turn, n.recorded_at
  RETURN collect(n) AS around
}
WITH f, [n IN around WHERE n.turn < f.turn | n.text] + [f.text]
  + [n IN around WHERE n.turn > f.turn | n.text] AS parts
SET f.passage_text = substring(reduce(acc = '', part IN parts | acc + ' ' + toString(part)), 1)
RETURN count(f) AS refreshed
