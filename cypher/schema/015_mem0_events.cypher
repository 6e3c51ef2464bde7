// mem0's events (graph/adapters/mem0/): an add answers an event id that is polled by id.
CREATE CONSTRAINT mem0_event_id IF NOT EXISTS FOR (e:Mem0Event) REQUIRE e.id IS UNIQUE;
