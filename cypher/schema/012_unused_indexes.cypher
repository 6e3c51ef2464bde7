// Indexes no query reads, dropped because every fact written pays for them at commit.
// fact_content_hash (scope, content_hash): no Cypher filters on content_hash (exact dedup seeks
// the fact_live_hash constraint's index), so the planner never used it. It was one of the nine
// B-tree indexes and constraints on :Fact, which together cost a bare vector-indexed CREATE
// 4-14% (bench/README.md, "Import speed": "What each :Fact write costs").
DROP INDEX fact_content_hash IF EXISTS;
