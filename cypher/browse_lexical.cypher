// Lexical search: case-insensitive substring match on the TEXT indexes over lowercased copies
// (fact_lexical: text, subject / predicate / object, tags, entity names at write time;
// entity_lexical: an entity's name and aliases). The hints keep the planner on the text index
// even though the scope and status predicates could also be served by range indexes.
// Archived facts (superseded, forgotten, quarantined) and facts past their TTL are skipped.
// Newest first: valid time, then recorded time, then id, like the timeline.
// At most $cap matches are sorted here; past that (`overflow`) the needle is common in the
// scope and browse_lexical_dense.cypher finds the newest matches faster by walking the
// valid-time index, where matches are dense.
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
WITH f
LIMIT $cap + 1
WITH collect(f) AS found
CALL (found) {
  UNWIND CASE WHEN size(found) > $cap THEN [] ELSE found END AS f
  WITH f
  ORDER BY f.valid_from DESC, f.recorded_at DESC, f.id DESC
  LIMIT $limit
  RETURN collect({id: f.id, text: f.text, time: f.valid_from}) AS hits
}
RETURN size(found) > $cap AS overflow, hits
