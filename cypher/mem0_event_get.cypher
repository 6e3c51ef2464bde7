// A mem0 event by id among a project's scopes ($prefix: `<project>/`): a seek on the unique id.
MATCH (e:Mem0Event {id: $id})
WHERE e.scope STARTS WITH $prefix
RETURN e {.*} AS event
