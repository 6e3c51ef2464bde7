// Queue a scope's live facts again (after an enricher was turned on, or its rules changed).
// Consolidation recomputes what it adds from the fact itself, so a second run replaces the
// first one's additions instead of stacking on them.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.status IN ['active', 'quarantined']
SET f.consolidation_queued_at = $now
RETURN count(f) AS queued
