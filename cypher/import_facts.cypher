// Fast-path import of one batch of facts, inside one managed write transaction
// (graph/bulk/importer.py). Each row is {line, props, times, entities, audit_id, reason}:
// `props` and `times` together are exactly graph.store.fact_properties' map, the datetimes
// travelling as ISO 8601 text in `times` because the driver is slow to convert them (see
// graph/bulk/wire.py); `datetime()` restores each one. Entities and tags are linked as
// cypher/fact_insert.cypher links them, so an imported fact is the node a remembered one is.
// CALL runs once per row, in file order, and sees the rows before it. Outcomes:
//   present  - a fact with this id exists in the scope (a re-run or a resumed import): untouched
//   conflict - the id belongs to a fact of another scope: untouched, reported as a bad row
//   dedup    - a live fact of the scope has the same content (exact dedup on live_hash)
//   insert   - created, linked, and recorded in the audit trail
UNWIND $rows AS row
CALL (row) {
  OPTIONAL MATCH (same:Fact {id: row.props.id})
  CALL (row, same) {
    WITH same WHERE same IS NOT NULL
    RETURN same AS f
    UNION
    WITH row, same WHERE same IS NULL AND row.props.live_hash IS NOT NULL
    MERGE (f:Fact {scope: row.props.scope, live_hash: row.props.live_hash})
      ON CREATE SET f += row.props
    RETURN f
    UNION
    WITH row, same WHERE same IS NULL AND row.props.live_hash IS NULL
    CREATE (f:Fact)
    SET f += row.props
    RETURN f
  }
  WITH row, same, f, same IS NULL AND f.id = row.props.id AS created
  // The status label mirrors `status` for the Neo4j Browser's style (cypher/fact_insert.cypher).
  CALL (row, f, created) {
    WITH row, f WHERE created
    SET f:$(CASE row.props.status WHEN 'active' THEN 'Active' WHEN 'quarantined' THEN 'Quarantined'
            WHEN 'superseded' THEN 'Superseded' WHEN 'forgotten' THEN 'Forgotten' ELSE [] END)
  }
  CALL (row, f, created) {
    WITH row, f WHERE created
    UNWIND keys(row.times) AS key
    SET f[key] = datetime(row.times[key])
  }
  CALL (row, f, created) {
    WITH row, f WHERE created
    UNWIND row.entities AS ent
    MERGE (e:Entity {scope: row.props.scope, canonical: ent.canonical})
      ON CREATE SET e.name = ent.name, e.aliases = [], e.type = ent.type,
                    e.lexical_text = toLower(ent.name), e.created_at = $now
    WITH f, e, ent,
         CASE WHEN ent.name <> e.name AND NOT ent.name IN e.aliases
              THEN e.aliases + ent.name ELSE e.aliases END AS aliases,
         toLower(reduce(s = e.name, a IN e.aliases + [ent.name] | s + '\n' + a)) AS lexical
    // The values cypher/fact_insert.cypher sets, written only when they change: rewriting an
    // unchanged entity for every row of a batch costs more than the rest of the row.
    CALL (e, aliases, lexical) {
      WITH e, aliases, lexical
      WHERE NOT coalesce(e.aliases = aliases AND e.lexical_text = lexical, false)
      SET e.aliases = aliases, e.lexical_text = lexical
    }
    MERGE (f)-[:MENTIONS {role: ent.role}]->(e)
  }
  CALL (row, f, created) {
    WITH row, f WHERE created
    UNWIND row.props.tags AS tag
    MERGE (t:Tag {scope: row.props.scope, name: tag})
    MERGE (f)-[:TAGGED]->(t)
  }
  CALL (row, f, created) {
    WITH row, f WHERE created
    CREATE (a:AuditEvent {id: row.audit_id, scope: row.props.scope, kind: 'insert',
                          actor: $actor, reason: row.reason, at: $now, fact_id: f.id})
    CREATE (a)-[:CONCERNS]->(f)
  }
  RETURN CASE
           WHEN same IS NOT NULL AND same.scope = row.props.scope THEN 'present'
           WHEN same IS NOT NULL THEN 'conflict'
           WHEN created THEN 'insert'
           ELSE 'dedup'
         END AS outcome,
         f.id AS fact_id
}
RETURN row.line AS line, outcome, fact_id
