// `factgraph read-texts` on a store whose server has not yet applied this factgraph's schema:
// the one constraint the term links need (as cypher/schema/001_constraints.cypher has it), so
// that MERGE finds a term by its index instead of a label scan.
CREATE CONSTRAINT term_key IF NOT EXISTS FOR (t:Term) REQUIRE (t.scope, t.canonical) IS UNIQUE
