// TEMPLATE for batch Cypher jobs: load one batch of facts given as a list of maps, $rows, into
// the scope $scope. Use it from any driver (pass rows in batches of ~1,000) or cypher-shell:
//
//   factgraph cypher-shell \
//     --param "scope => 'acme'" \
//     --param "rows => [{id: 'acme-1', text: 'Melanie moved from Sweden', subject: 'Melanie',
//                        predicate: 'moved_from', object: 'Sweden', tags: ['bio']}]" \
//     -f cypher/import_template_rows.cypher
//
// then run `factgraph embed --missing --scope acme`: it computes the content hash (exact dedup),
// the contextual index text, the vector and the entity links that Cypher cannot, and drops a
// row that duplicates a live fact. Until then the facts are found by full-text search only.
// Row keys: text (required), id, subject, predicate, object, tags (list), importance (0-10),
// partition, source, metadata (a JSON string), session_id, turn, valid_from, valid_to,
// expires_at, recorded_at (ISO-8601 strings). Rows MERGE on id, so re-running a job with ids
// adds nothing; rows without an id get a random one.
UNWIND $rows AS row
MERGE (f:Fact {id: coalesce(row.id, randomUUID())})
  ON CREATE SET
    f:Active,
    f.scope = $scope,
    f.text = row.text,
    f.index_text = row.text,
    // Within the TEXT index's value limit; `embed --missing` sets the lexical copy again.
    f.lexical_text = left(toLower(row.text), 8000),
    f.subject = row.subject,
    f.predicate = row.predicate,
    f.object = row.object,
    f.tags = coalesce(row.tags, []),
    f.importance = toFloat(coalesce(row.importance, 5.0)),
    f.partition = coalesce(row.partition, 'default'),
    f.source = row.source,
    f.metadata = row.metadata,
    f.session_id = row.session_id,
    f.turn = toInteger(row.turn),
    f.status = 'active',
    f.strength = 1.0,
    f.access_count = 0,
    f.valid_from = coalesce(datetime(row.valid_from), datetime(row.recorded_at),
                            datetime.transaction()),
    f.valid_to = datetime(row.valid_to),
    f.expires_at = datetime(row.expires_at),
    f.recorded_at = coalesce(datetime(row.recorded_at), datetime.transaction()),
    f.updated_at = datetime.transaction()
WITH f
CALL (f) {
  UNWIND f.tags AS tag
  MERGE (t:Tag {scope: f.scope, name: tag})
  MERGE (f)-[:TAGGED]->(t)
}
RETURN count(f) AS loaded
