// TEMPLATE for batch Cypher jobs: load a CSV file with a header into the scope $scope, committing
// every 1,000 rows. The file must be readable by the Neo4j server: put it in the server's import
// folder (.factgraph/neo4j/import for factgraph's own server) and pass $url = 'file:///facts.csv'
// (or an https:// URL). CALL { } IN TRANSACTIONS needs an auto-commit transaction, which is what
// cypher-shell runs (in the Neo4j Browser, prefix the query with :auto):
//
//   cp facts.csv .factgraph/neo4j/import/
//   factgraph cypher-shell \
//     --param "scope => 'acme'" --param "url => 'file:///facts.csv'" \
//     -f cypher/import_template_csv.cypher
//
// then run `factgraph embed --missing --scope acme` (content hash and exact dedup, contextual
// index text, vectors, entity links). Columns: text (required), id, subject, predicate, object,
// tags ("a;b;c"), importance, partition, source, metadata (JSON), session_id, turn, valid_from,
// valid_to, expires_at, recorded_at (ISO-8601). Empty cells are missing values. Rows MERGE on
// id, so re-running the job adds nothing; rows without an id get a random one.
LOAD CSV WITH HEADERS FROM $url AS row
CALL (row) {
  WITH row WHERE nullIf(row.text, '') IS NOT NULL
  MERGE (f:Fact {id: coalesce(nullIf(row.id, ''), randomUUID())})
    ON CREATE SET
      f:Active,
      f.scope = $scope,
      f.text = row.text,
      f.index_text = row.text,
      // Within the TEXT index's value limit; `embed --missing` sets the lexical copy again.
      f.lexical_text = left(toLower(row.text), 8000),
      f.subject = nullIf(row.subject, ''),
      f.predicate = nullIf(row.predicate, ''),
      f.object = nullIf(row.object, ''),
      f.tags = [tag IN split(coalesce(row.tags, ''), ';') WHERE trim(tag) <> '' | trim(tag)],
      f.importance = coalesce(toFloat(row.importance), 5.0),
      f.partition = coalesce(nullIf(row.partition, ''), 'default'),
      f.source = nullIf(row.source, ''),
      f.metadata = nullIf(row.metadata, ''),
      f.session_id = nullIf(row.session_id, ''),
      f.turn = toInteger(row.turn),
      f.status = 'active',
      f.strength = 1.0,
      f.access_count = 0,
      f.valid_from = coalesce(datetime(nullIf(row.valid_from, '')),
                              datetime(nullIf(row.recorded_at, '')), datetime.statement()),
      f.valid_to = datetime(nullIf(row.valid_to, '')),
      f.expires_at = datetime(nullIf(row.expires_at, '')),
      f.recorded_at = coalesce(datetime(nullIf(row.recorded_at, '')), datetime.statement()),
      f.updated_at = datetime.statement()
  WITH f
  CALL (f) {
    UNWIND f.tags AS tag
    MERGE (t:Tag {scope: f.scope, name: tag})
    MERGE (f)-[:TAGGED]->(t)
  }
} IN TRANSACTIONS OF 1000 ROWS
