// Every fact of the chosen scopes (all scopes when $scopes is null) with its entity links (every
// role: subject, object, the consolidator's `mention`), the facts it supersedes and the facts it
// was derived from, oldest first: the order in which they were recorded, so an import replays
// the history in the order it happened. Streamed by graph/bulk/exporter.py.
MATCH (f:Fact)
WHERE $scopes IS NULL OR f.scope IN $scopes
WITH f ORDER BY f.scope, f.recorded_at, f.id
RETURN f {.*} AS props,
       [(f)-[m:MENTIONS]->(e:Entity) | e {.*, role: m.role}] AS entities,
       [(f)-[s:SUPERSEDES]->(old:Fact) | {id: old.id, reason: s.reason, at: s.at}] AS supersedes,
       [(f)-[:DERIVED_FROM]->(source:Fact) | source.id] AS derived_from
