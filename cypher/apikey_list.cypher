// Every API key, newest first, without the hashes.
MATCH (k:ApiKey)
RETURN k {.*, hash: null} AS key
ORDER BY k.created_at DESC
