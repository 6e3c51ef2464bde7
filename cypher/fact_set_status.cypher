// Move a fact between lifecycle states (forget, validate, reject). live_hash follows the
// status, so only active and quarantined facts take part in exact-duplicate detection.
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope AND f.status IN $allowed
SET f.status = $status,
    f.live_hash = CASE WHEN $status IN ['active', 'quarantined'] THEN f.content_hash END,
    f.expired_at = CASE WHEN $status = 'forgotten' THEN $now ELSE f.expired_at END,
    f.updated_at = $now
// The status label mirrors `status` for the Neo4j Browser's style.
REMOVE f:Active:Quarantined:Superseded:Forgotten
SET f:$(CASE $status WHEN 'active' THEN 'Active' WHEN 'quarantined' THEN 'Quarantined'
        WHEN 'superseded' THEN 'Superseded' WHEN 'forgotten' THEN 'Forgotten' ELSE [] END)
RETURN f {.*, embedding: null} AS fact
