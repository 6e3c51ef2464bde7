// First start of the local server: move the initial password to the configured one
// (graph/platform/neo4j_local.py; run on the system database).
ALTER CURRENT USER SET PASSWORD FROM $old TO $new
