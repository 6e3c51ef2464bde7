// Tag the facts a fast-import batch created (graph/bulk/importer.py), once per batch: each
// (scope, tag) is merged once, then each of its taggings is a plain CREATE (the facts are new,
// and the importer sends each (fact, tag) once), from the facts' element ids that
// cypher/import_facts.cypher returned in this transaction, in file order: the end state
// cypher/fact_insert.cypher's MERGEs would leave, each tag's newest facts first.
// $tags: [{scope, name, nodes: [element id, ...]}], each (scope, name) once.
UNWIND $tags AS tag
MERGE (t:Tag {scope: tag.scope, name: tag.name})
WITH t, tag.nodes AS nodes
UNWIND nodes AS node
MATCH (f:Fact) WHERE elementId(f) = node
CREATE (f)-[:TAGGED]->(t)
RETURN count(*) AS tagged
