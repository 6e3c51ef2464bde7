// Which of $canonicals are entities of the scope's knowledge graph (graph/adapters/knowledge_graph/): created
// by create_entities and not deleted since (kg_created_at set).
UNWIND $canonicals AS canonical
MATCH (e:Entity {scope: $scope, canonical: canonical})
WHERE e.kg_created_at IS NOT NULL
RETURN e.canonical AS canonical
