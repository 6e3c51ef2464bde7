// Insert the new facts of a remember_many batch, in input order (the batch form of
// cypher/fact_insert.cypher). The pipeline already decided each row is new: a row whose
// content a concurrent writer committed meanwhile comes back with created = false, and the
// caller decides the whole batch again. Datetimes travel as ISO 8601 text in row.times and
// the vector as a `Vector` (graph/storage/wire.py: the driver is slow with either as is). Only
// `created` comes back: the caller already holds every property it sent, and the driver's
// hydration of the returned datetimes cost more than the statement (graph/write/batch.py).
UNWIND $rows AS row
CALL (row) {
  MERGE (f:Fact {scope: $scope, live_hash: row.props.content_hash})
    ON CREATE SET f += row.props,
      f:$(CASE row.props.status WHEN 'active' THEN 'Active' WHEN 'quarantined' THEN 'Quarantined'
          ELSE [] END),
      f:$(CASE WHEN row.props.standing IS NULL THEN [] ELSE 'Standing' END),
      f:$($shard_label)
  WITH f, f.id = row.props.id AS created
  CALL (row, f, created) {
    WITH row, f WHERE created
    UNWIND keys(row.times) AS key
    SET f[key] = datetime(row.times[key])
  }
  CALL (row, f, created) {
    WITH row, f WHERE created AND row.embedding IS NOT NULL
    CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
  }
  CALL (row, f, created) {
    WITH row, f WHERE created
    UNWIND row.entities AS ent
    MERGE (e:Entity {scope: $scope, canonical: ent.canonical})
      ON CREATE SET e.name = ent.name, e.aliases = [], e.type = ent.type,
                    e.lexical_text = toLower(ent.name), e.created_at = $now
    WITH f, e, ent
    SET e.aliases = CASE WHEN ent.name <> e.name AND NOT ent.name IN e.aliases
                         THEN e.aliases + ent.name ELSE e.aliases END,
        e.lexical_text = toLower(reduce(s = e.name, a IN e.aliases + [ent.name] | s + '\n' + a))
    MERGE (f)-[:MENTIONS {role: ent.role}]->(e)
  }
  CALL (row, f, created) {
    WITH row, f WHERE created
    UNWIND row.props.tags AS tag
    MERGE (t:Tag {scope: $scope, name: tag})
    MERGE (f)-[:TAGGED]->(t)
  }
  RETURN created
}
RETURN created
