// search_nodes (graph/adapters/knowledge_graph/): the knowledge graph's entities whose name, type or a live
// observation contains one of $needles (lowercased by the caller; case-insensitive here).
MATCH (e:Entity)
WHERE e.scope = $scope AND e.kg_created_at IS NOT NULL
  AND (any(n IN $needles WHERE toLower(e.name) CONTAINS n OR toLower(coalesce(e.type, '')) CONTAINS n)
       OR EXISTS {
         MATCH (e)<-[:MENTIONS {role: 'subject'}]-(f:Fact)
         WHERE f.scope = $scope AND f.status = 'active' AND f.partition = $partition
           AND f.object IS NULL
           AND any(n IN $needles WHERE toLower(substring(f.text, size(f.subject) + 2)) CONTAINS n)
       })
RETURN e.canonical AS canonical
