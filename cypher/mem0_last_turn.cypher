// The last turn written in a session of a scope, so the messages of the next mem0 add follow
// it (the consolidator reads a turn with the turns before it). Seeks (scope, session_id, turn).
MATCH (f:Fact)
WHERE f.scope = $scope AND f.session_id = $session_id AND f.turn IS NOT NULL
RETURN max(f.turn) AS turn
