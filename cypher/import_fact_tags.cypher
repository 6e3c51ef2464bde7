// Tag the facts a fast-import batch created (graph/bulk/importer.py), once per batch: each
// (scope, tag) is merged once, then each tagging is a plain CREATE (the facts are new, and the
// importer sends each (fact, tag) once), as cypher/fact_insert.cypher's MERGEs would leave it.
// $tags: [{scope, name}] distinct, $tagged: [{id, scope, name}].
UNWIND $tags AS tag
MERGE (:Tag {scope: tag.scope, name: tag.name})
WITH count(*) AS merged
UNWIND $tagged AS x
MATCH (f:Fact {id: x.id})
MATCH (t:Tag {scope: x.scope, name: x.name})
CREATE (f)-[:TAGGED]->(t)
RETURN count(*) AS tagged
