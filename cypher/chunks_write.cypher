// The chunks of long texts (graph/write/chunks.py): each window of a fact's text after the
// first, with its vector, as (:Chunk)-[:CHUNK_OF]->(:Fact). Written in the transaction that
// writes the fact (or its new vector); $replace removes the fact's earlier chunks first
// (reembed, the consolidator). A chunk carries its scope and its scope's chunk shard label
// (row.shard_label, graph/storage/vector_shards.py), which put its vector into that scope's
// chunk index; search reaches the fact through CHUNK_OF and filters it there.
UNWIND $rows AS row
MATCH (f:Fact {id: row.fact_id})
CALL (f) {
  WITH f WHERE $replace
  MATCH (f)<-[:CHUNK_OF]-(old:Chunk)
  DETACH DELETE old
}
CALL (row, f) {
  UNWIND row.chunks AS chunk
  CREATE (c:Chunk {fact_id: f.id, scope: f.scope, ord: chunk.ord, start: chunk.start,
                   end: chunk.end})
  SET c:$(row.shard_label)
  CREATE (c)-[:CHUNK_OF]->(f)
  // The vector as 32-bit floats, as a fact's (cypher/fact_insert.cypher).
  WITH c, chunk
  CALL db.create.setNodeVectorProperty(c, 'embedding', chunk.embedding)
  RETURN count(c) AS made
}
RETURN sum(made) AS chunks
