// graph/bulk/settle.py: one vector written after a bulk load so that Lucene chooses merges for
// the vector index's small segments again; deleted at once (vector_index_probe_delete.cypher).
// It lives for two short transactions in a scope of its own (graph/bulk/settle.PROBE_SCOPE).
CREATE (:Fact {id: $id, scope: $scope, embedding: $vector})
