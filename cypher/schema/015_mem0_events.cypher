// mem0's events (graph/adapters/mem0/): an add answers an event id that is polled by id.
CREATE CONSTRAINT mem0_event_id IF NOT EXISTS FOR (e:Mem0Event) REQUIRE e.id IS UNIQUE;
// Found by scope when a project or a scope is dropped (cypher/mem0_project_scopes.cypher).
CREATE RANGE INDEX mem0_event_scope IF NOT EXISTS FOR (e:Mem0Event) ON (e.scope);
