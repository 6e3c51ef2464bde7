// graph/bulk/settle.py: one vector written into each vector shard that holds facts after a bulk
// load, so that Lucene chooses merges for the shard's small segments again; deleted at once
// (vector_index_probe_delete.cypher). Each lives for two short transactions in a scope of its own
// (graph/bulk/settle.PROBE_SCOPE), labelled with the shard it probes ($rows: {id, label}).
UNWIND $rows AS row
CREATE (p:Fact {id: row.id, scope: $scope, embedding: $vector})
SET p:$(row.label)
