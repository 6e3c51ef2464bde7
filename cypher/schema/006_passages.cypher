// Passages: a conversational turn with the turns around it (see cypher/fact_passages_refresh.cypher)
// is a second full-text entry of the turn, searched beside its own clean entry. Same fields for
// the scope and filter clauses as fact_fulltext_filtered.
CREATE FULLTEXT INDEX fact_passage_fulltext IF NOT EXISTS FOR (f:Fact) ON EACH [f.passage_text, f.scope, f.tags, f.partition]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}};
