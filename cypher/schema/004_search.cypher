// Full-text over the index text AND the scope: search puts the scope into the Lucene query
// (a phrase on the scope field), so a small scope next to a large one gets its own best
// matches from the index instead of filtering a global ranking (fact_fulltext stays for
// callers that rank across scopes). Cypher still checks f.scope exactly.
CREATE FULLTEXT INDEX fact_fulltext_scoped IF NOT EXISTS FOR (f:Fact) ON EACH [f.index_text, f.scope]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}};
