// How many facts the database and each vector shard (:VectorShard00 .. :VectorShard15,
// graph/storage/vector_shards.py) hold, from the count store, so it costs nothing however large the
// database: the facts missing a shard label at start-up (graph/storage/schema.py) and the shards an
// import filled (graph/bulk/settle.py). search_scope_share.cypher reads the same counts beside a
// scope's own, so that search sizes its vector call in one round trip.
CALL () { MATCH (f:Fact) RETURN count(f) AS facts }
CALL () { MATCH (f:VectorShard00) RETURN count(f) AS s00 }
CALL () { MATCH (f:VectorShard01) RETURN count(f) AS s01 }
CALL () { MATCH (f:VectorShard02) RETURN count(f) AS s02 }
CALL () { MATCH (f:VectorShard03) RETURN count(f) AS s03 }
CALL () { MATCH (f:VectorShard04) RETURN count(f) AS s04 }
CALL () { MATCH (f:VectorShard05) RETURN count(f) AS s05 }
CALL () { MATCH (f:VectorShard06) RETURN count(f) AS s06 }
CALL () { MATCH (f:VectorShard07) RETURN count(f) AS s07 }
CALL () { MATCH (f:VectorShard08) RETURN count(f) AS s08 }
CALL () { MATCH (f:VectorShard09) RETURN count(f) AS s09 }
CALL () { MATCH (f:VectorShard10) RETURN count(f) AS s10 }
CALL () { MATCH (f:VectorShard11) RETURN count(f) AS s11 }
CALL () { MATCH (f:VectorShard12) RETURN count(f) AS s12 }
CALL () { MATCH (f:VectorShard13) RETURN count(f) AS s13 }
CALL () { MATCH (f:VectorShard14) RETURN count(f) AS s14 }
CALL () { MATCH (f:VectorShard15) RETURN count(f) AS s15 }
WITH facts, [s00, s01, s02, s03, s04, s05, s06, s07, s08, s09, s10, s11, s12, s13, s14, s15] AS shards
RETURN facts, facts - reduce(n = 0, c IN shards | n + c) AS missing, shards
