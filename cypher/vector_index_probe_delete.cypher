// graph/bulk/settle.py: remove the probe vector written by vector_index_probe_create.cypher.
MATCH (p:Fact {id: $id})
DELETE p
