// graph/bulk/settle.py: remove the probe vectors written by vector_index_probe_create.cypher.
MATCH (p:Fact)
WHERE p.id IN $ids
DELETE p
