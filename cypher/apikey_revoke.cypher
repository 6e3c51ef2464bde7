// Revoke a key; revoking twice keeps the first revocation time.
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, $now)
RETURN k {.*, hash: null} AS key
