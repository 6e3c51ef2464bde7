// Lexical search for a needle with many matches in the scope (see browse_lexical.cypher): walk
// the scope's facts newest first in RANGE INDEX (scope, valid_from) order and keep those whose
// lowercased text, or an entity's name or alias, contains the needle. With matches dense, the
// first $limit turn up after a short walk instead of a sort of every match. Same filters and
// order as browse_lexical.cypher.
MATCH (f:Fact)
USING INDEX f:Fact(scope, valid_from)
WHERE f.scope = $scope
  AND f.valid_from <= datetime('9999-12-31T23:59:59.999999999Z')
  AND f.valid_from >= datetime('0001-01-01T00:00:00Z')
  AND f.status = 'active'
  AND NOT f.id IN $exclude_ids
  AND coalesce(f.expires_at > $now, true)
  AND (f.lexical_text CONTAINS $needle
       OR EXISTS { MATCH (f)-[:MENTIONS]->(e) WHERE e.lexical_text CONTAINS $needle })
RETURN f.id AS id, f.text AS text, f.valid_from AS time
ORDER BY f.scope DESC, f.valid_from DESC, f.recorded_at DESC, f.id DESC
LIMIT $limit
