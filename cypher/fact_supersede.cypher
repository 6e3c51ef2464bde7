// Retire the old fact on both time axes (valid_to: it stopped being true; expired_at: we
// stopped believing it) and chain the new fact to it. Only an active fact can be superseded,
// and its status is read under its write lock: a second writer retiring it concurrently waits,
// then finds it superseded and gets no row (the caller decides again), instead of forking the
// chain with a second SUPERSEDES.
MATCH (old:Fact {id: $old_id})
WHERE old.scope = $scope
SET old._lock = true
REMOVE old._lock
WITH old
WHERE old.status = 'active'
MATCH (new:Fact {id: $new_id})
WHERE new.scope = $scope
SET old.status = 'superseded',
    old.live_hash = null,
    old.valid_to = CASE
      WHEN old.valid_to IS NULL OR old.valid_to > $valid_until THEN $valid_until
      ELSE old.valid_to END,
    old.expired_at = $now,
    old.updated_at = $now,
    old:Superseded
REMOVE old:Active
CREATE (new)-[:SUPERSEDES {reason: $reason, at: $now}]->(old)
RETURN old {.*, embedding: null} AS fact
