// knowledge_members.cypher under each entity's write lock, held until commit: an observation
// written in this transaction cannot land on an entity that a concurrent delete_entities
// removes (that transaction waits, then finds and forgets it; or this one waits, then finds
// the entity gone). The lock is taken before membership is read, so the read is of what
// the other transaction committed (see cypher/fact_lock.cypher).
UNWIND $canonicals AS canonical
MATCH (e:Entity {scope: $scope, canonical: canonical})
SET e._lock = true
REMOVE e._lock
WITH e
WHERE e.kg_created_at IS NOT NULL
RETURN e.canonical AS canonical
