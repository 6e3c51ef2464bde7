// Every scope of a mem0 project ($prefix: `<project>/`), whatever its facts' status, and those
// holding only events (an add of system messages alone): what to delete to drop the project.
// Range seeks on the (scope, status) index and on the events' scope index.
CALL () {
  MATCH (f:Fact)
  WHERE f.scope STARTS WITH $prefix
  RETURN f.scope AS scope
  UNION
  MATCH (e:Mem0Event)
  WHERE e.scope STARTS WITH $prefix
  RETURN e.scope AS scope
}
RETURN DISTINCT scope
ORDER BY scope
