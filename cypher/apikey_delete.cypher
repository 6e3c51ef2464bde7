// Remove a key entirely (tests and `keys revoke --delete`); revocation is the normal path.
MATCH (k:ApiKey {id: $id})
DELETE k
RETURN count(*) AS deleted
