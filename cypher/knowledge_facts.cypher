// The live knowledge-graph facts (partition $partition) of an entity of $canonicals:
// observations (subject only; the observation is the text after "<subject>: ") and relations
// (subject, predicate = relation type, object). Oldest first, the order they were given in.
// A fact is an entity's when the entity is its subject or object: the consolidator's
// `mention` links ("Alice: works at Acme Corp" names Acme Corp) make no fact another entity's.
UNWIND $canonicals AS canonical
MATCH (:Entity {scope: $scope, canonical: canonical})<-[m:MENTIONS]-(f:Fact)
WHERE m.role IN ['subject', 'object']
  AND f.scope = $scope AND f.status = 'active' AND f.partition = $partition
WITH DISTINCT f
MATCH (f)-[:MENTIONS {role: 'subject'}]->(s:Entity)
OPTIONAL MATCH (f)-[:MENTIONS {role: 'object'}]->(o:Entity)
RETURN f.id AS id, s.canonical AS subject, f.predicate AS predicate, o.canonical AS object,
       CASE WHEN f.object IS NULL THEN substring(f.text, size(f.subject) + 2) END AS observation
ORDER BY f.valid_from, f.recorded_at, f.id
