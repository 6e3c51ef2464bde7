// One API key by id, with its hash, for verifying a presented secret.
MATCH (k:ApiKey {id: $id})
RETURN k {.*} AS key
