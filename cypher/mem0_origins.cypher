// The first version of each fact's supersede chain ($ids: facts of a mem0 project, $prefix:
// `<project>/`): the id and creation time mem0 shows stay the first version's across updates
// (graph/adapters/mem0/held.py). A seek on the unique id, then the chain walked backwards.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.scope STARTS WITH $prefix
OPTIONAL MATCH (f)-[:SUPERSEDES*1..]->(first:Fact)
WHERE NOT (first)-[:SUPERSEDES]->(:Fact)
WITH f, first
ORDER BY first.recorded_at, first.id
WITH f, head(collect(first)) AS first
RETURN f.id AS id, coalesce(first.id, f.id) AS origin,
       coalesce(first.recorded_at, f.recorded_at) AS created_at
