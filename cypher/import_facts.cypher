// Fast-path import of one batch of facts, the first statement of one managed write transaction
// (graph/bulk/importer.py). Each row is {line, props, times}: `props` and `times` together are
// exactly graph.storage.store.fact_properties' map, the datetimes travelling as ISO 8601 text in `times`
// because the driver is slow to convert them (see graph/storage/wire.py); `datetime()` restores
// each one. The facts created here get their entities, tags and audit events from the next
// statements of the same transaction, once per batch (cypher/import_fact_entities.cypher,
// import_fact_tags.cypher, import_fact_audit.cypher): merging an entity or a tag once per row
// cost more than creating the fact.
// CALL runs once per row, in file order, and sees the rows before it. Outcomes:
//   present  - a fact with this id exists in the scope (a re-run or a resumed import): untouched
//   conflict - the id belongs to a fact of another scope: untouched, reported as a bad row
//   dedup    - a live fact of the scope has the same content (exact dedup on live_hash)
//   insert   - created (then linked and recorded in the audit trail by the next statements,
//              which find it by the element id returned here, within the same transaction)
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
  // The status label mirrors `status` for the Neo4j Browser's style, :Standing marks a standing
  // instruction or preference (graph/reading/standing.py), and the shard label puts
  // the vector into its scope's index (cypher/fact_insert.cypher).
  CALL (row, f, created) {
    WITH row, f WHERE created
    SET f:$(CASE row.props.status WHEN 'active' THEN 'Active' WHEN 'quarantined' THEN 'Quarantined'
            WHEN 'superseded' THEN 'Superseded' WHEN 'forgotten' THEN 'Forgotten' ELSE [] END),
        f:$(CASE WHEN row.props.standing IS NULL THEN [] ELSE 'Standing' END),
        f:$(row.shard_label)
  }
  // The vector is stored as 32-bit floats (half of what `SET` stores, and what the vector index
  // keeps anyway): see cypher/fact_insert.cypher.
  CALL (row, f, created) {
    WITH row, f WHERE created AND row.props.embedding IS NOT NULL
    CALL db.create.setNodeVectorProperty(f, 'embedding', row.props.embedding)
  }
  CALL (row, f, created) {
    WITH row, f WHERE created
    UNWIND keys(row.times) AS key
    SET f[key] = datetime(row.times[key])
  }
  RETURN CASE
           WHEN same IS NOT NULL AND same.scope = row.props.scope THEN 'present'
           WHEN same IS NOT NULL THEN 'conflict'
           WHEN created THEN 'insert'
           ELSE 'dedup'
         END AS outcome,
         f.id AS fact_id,
         CASE WHEN created THEN elementId(f) END AS node
}
RETURN row.line AS line, outcome, fact_id, node
