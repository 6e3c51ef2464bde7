// Every scope of a mem0 project ($prefix: `<project>/`), whatever its facts' status: what to
// delete to drop the project. A range seek on the (scope, status) index.
MATCH (f:Fact)
WHERE f.scope STARTS WITH $prefix
RETURN DISTINCT f.scope AS scope
ORDER BY scope
