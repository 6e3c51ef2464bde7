// Full-text over the index text AND the fields search filters on (scope, tags, partition):
// search puts the scope and the filters into the Lucene query as zero-weight clauses (see
// graph/search/lucene.py), so a small scope next to a large one, or a rare tag, gets its own
// best matches from the index instead of filtering a global ranking (fact_fulltext stays for
// callers that rank across scopes). The clauses only narrow: Cypher still checks each filter
// exactly. This index replaces fact_fulltext_scoped (index text + scope only), dropped here.
CREATE FULLTEXT INDEX fact_fulltext_filtered IF NOT EXISTS FOR (f:Fact) ON EACH [f.index_text, f.scope, f.tags, f.partition]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}};
DROP INDEX fact_fulltext_scoped IF EXISTS;
