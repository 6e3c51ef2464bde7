// Store a new API key. Only the SHA-256 of the secret is kept; the secret is shown once.
CREATE (k:ApiKey {
  id: $id, hash: $hash, scopes: $scopes, role: $role, label: $label,
  created_at: $now, revoked_at: null
})
RETURN k {.*, hash: null} AS key
