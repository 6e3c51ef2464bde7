// Indexes no query reads, dropped because every fact written pays for them at commit.
// fact_content_hash (scope, content_hash): no Cypher filters on content_hash (exact dedup seeks
// the fact_live_hash constraint's index), so the planner never used it; measured beside the
// rest of the :Fact schema it was about 2% of a bulk write (bench/README.md, "Import speed").
DROP INDEX fact_content_hash IF EXISTS;
