// delete_entities (graph/adapters/knowledge_graph/): take the entities of $canonicals out of the knowledge
// graph, under their write locks (see knowledge_members_locked.cypher). The Entity node stays
// (forgotten facts still link to it, and other facts may); kg_deleted_at says when it left.
UNWIND $canonicals AS canonical
MATCH (e:Entity {scope: $scope, canonical: canonical})
SET e._lock = true
REMOVE e._lock
WITH e
WHERE e.kg_created_at IS NOT NULL
SET e.kg_deleted_at = $now
REMOVE e.kg_created_at
RETURN e.canonical AS canonical
