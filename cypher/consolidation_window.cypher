// A turn and the live turns before it in its session: what the LLM enrichers read.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.session_id = $session_id
  AND f.turn >= $turn - $before AND f.turn <= $turn
  AND f.status IN ['active', 'quarantined']
RETURN f.id AS id, f.text AS text, f.turn AS turn
ORDER BY f.turn, f.id
