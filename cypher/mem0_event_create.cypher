// A mem0 event: what an add was asked ($payload, JSON text) and what it did ($results, JSON
// text), kept in the owner's scope so that `GET /v1/event/{id}/` answers it later and the
// scope's deletion removes it (cypher/scope_delete.cypher).
CREATE (e:Mem0Event {id: $id, scope: $scope, event_type: $event_type, status: $status,
                     payload: $payload, results: $results, created_at: $created_at,
                     completed_at: $completed_at})
RETURN e {.*} AS event
