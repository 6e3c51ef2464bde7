// Lexical search: case-insensitive substring match on the TEXT indexes over lowercased copies
// (fact_lexical: text, subject / predicate / object, tags, entity names at write time;
// entity_lexical: an entity's name and aliases). The hints keep the planner on the text index
// even though the scope and status predicates could also be served by range indexes.
// Archived facts (superseded, forgotten, quarantined) and facts past their TTL are skipped.
// Newest first: valid time, then recorded time, then id, like the timeline.
CALL () {
  MATCH (f:Fact)
  USING TEXT INDEX f:Fact(lexical_text)
  WHERE f.lexical_text CONTAINS $needle
    AND f.scope = $scope AND f.status = 'active'
  RETURN f
  UNION
  MATCH (e:Entity)
  USING TEXT INDEX e:Entity(lexical_text)
  WHERE e.lexical_text CONTAINS $needle AND e.scope = $scope
  // Expand from the few matching entities rather than seek every active fact of the scope.
  CALL (e) {
    MATCH (e)<-[:MENTIONS]-(f)
    RETURN f
  }
  WITH f
  WHERE f.scope = $scope AND f.status = 'active'
  RETURN f
}
WITH f
WHERE NOT f.id IN $exclude_ids AND coalesce(f.expires_at > $now, true)
RETURN 'fact' AS type, f.id AS id, f.text AS text, f.valid_from AS time,
       f.recorded_at AS recorded_at
ORDER BY time DESC, recorded_at DESC, id DESC
LIMIT $limit
