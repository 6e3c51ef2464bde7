// bench/browse.py: write a batch of prepared facts in one statement (no pipeline, no vectors:
// lexical search and the timeline need none) and link each to its subject entity.
UNWIND $rows AS row
CREATE (f:Fact)
SET f = row.props
WITH f, row
MATCH (e:Entity {scope: $scope, canonical: row.canonical})
CREATE (f)-[:MENTIONS {role: 'subject'}]->(e)
RETURN count(f) AS facts
