// Complete facts loaded by Cypher so they equal remembered ones: `props` is the full
// graph.storage.store.fact_properties map (content hash, live_hash, derived texts, vector, defaults),
// entities and tags are linked as cypher/fact_insert.cypher links them, and an audit event is
// recorded. A live fact whose content already lives in the scope is an exact duplicate: the
// existing fact is reinforced (as a repeated remember would) and the loaded copy removed.
UNWIND $rows AS row
MATCH (f:Fact {id: row.props.id})
CALL (row, f) {
  OPTIONAL MATCH (other:Fact {scope: f.scope, live_hash: row.props.live_hash})
  WITH row, f, CASE WHEN other IS NOT NULL AND other <> f THEN other END AS twin
  CALL (row, f, twin) {
    WITH row, f, twin WHERE twin IS NOT NULL
    SET twin.strength = coalesce(twin.strength, 1.0) + 1.0,
        twin.access_count = coalesce(twin.access_count, 0) + 1,
        twin.last_accessed_at = $now
    CREATE (a:AuditEvent {id: row.audit_id, scope: twin.scope, kind: 'dedup', actor: $actor,
                          reason: 'exact duplicate of a live fact in this scope', at: $now,
                          fact_id: twin.id})
    CREATE (a)-[:CONCERNS]->(twin)
    DETACH DELETE f
  }
  CALL (row, f, twin) {
    WITH row, f WHERE twin IS NULL
    SET f += row.props
    WITH row, f
    // The vector as 32-bit floats, the label of its scope's vector shard, and :Standing for a
    // standing instruction or preference (cypher/fact_insert.cypher).
    SET f:$(row.shard_label)
    SET f:$(CASE WHEN row.props.standing IS NULL THEN [] ELSE ['Standing'] END)
    WITH row, f
    CALL (row, f) {
      WITH row, f WHERE row.props.embedding IS NOT NULL
      CALL db.create.setNodeVectorProperty(f, 'embedding', row.props.embedding)
    }
    CALL (row, f) {
      UNWIND row.entities AS ent
      MERGE (e:Entity {scope: row.props.scope, canonical: ent.canonical})
        ON CREATE SET e.name = ent.name, e.aliases = [], e.type = ent.type,
                      e.lexical_text = toLower(ent.name), e.created_at = $now
      WITH f, e, ent
      SET e.aliases = CASE WHEN ent.name <> e.name AND NOT ent.name IN e.aliases
                           THEN e.aliases + ent.name ELSE e.aliases END,
          e.lexical_text = toLower(reduce(s = e.name, a IN e.aliases + [ent.name] | s + '\n' + a))
      MERGE (f)-[:MENTIONS {role: ent.role}]->(e)
    }
    CALL (row, f) {
      UNWIND row.props.tags AS tag
      MERGE (t:Tag {scope: row.props.scope, name: tag})
      MERGE (f)-[:TAGGED]->(t)
    }
    MERGE (a:AuditEvent {id: row.audit_id})
      ON CREATE SET a.scope = row.props.scope, a.kind = 'insert', a.actor = $actor,
                    a.reason = 'completed a fact loaded by a Cypher job', a.at = $now,
                    a.fact_id = f.id
    MERGE (a)-[:CONCERNS]->(f)
  }
  RETURN CASE WHEN twin IS NULL THEN 'completed' ELSE 'dedup' END AS outcome,
         twin.id AS twin_id
}
RETURN row.props.id AS id, outcome, twin_id
