// The knowledge-graph tools' entities (graph/adapters/knowledge_graph/): only members carry kg_created_at, so
// read_graph and search_nodes find a scope's members without walking all its entities.
CREATE RANGE INDEX entity_scope_kg IF NOT EXISTS FOR (e:Entity) ON (e.scope, e.kg_created_at);
