// A fact as it is now, read under its write lock: a concurrent transaction retiring or
// changing it waits for this one to commit. Setting and removing a marker property is
// Neo4j's documented way to take a node's write lock before reading (read-committed
// isolation otherwise lets two writers both act on the state they read before either
// committed: two supersedes of one fact would fork its chain).
MATCH (f:Fact {id: $id})
WHERE f.scope = $scope
SET f._lock = true
REMOVE f._lock
RETURN f {.*, embedding: null} AS fact
