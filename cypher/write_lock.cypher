// Wait for, then hold until commit, the lock named $key in the scope: a concurrent transaction
// running this with the same key blocks on the (scope, key) uniqueness constraint until this
// one commits or rolls back, and then reads what it committed (read-committed isolation).
// The node is deleted in the same transaction, so none is ever stored; the lock stays held.
MERGE (l:WriteLock {scope: $scope, key: $key})
DELETE l
RETURN true AS locked
