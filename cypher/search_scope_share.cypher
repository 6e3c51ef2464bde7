// How much of its vector shard's index and of the full-text indexes one scope's live facts make
// up (search over-fetch, graph/search/candidates.py): the facts of each shard and of the database
// come from the count store; the scope's count walks the (scope, status) range index, and is
// cached by the caller for a while.
CALL () {
  MATCH (f:Fact)
  RETURN count(f) AS total
}
CALL () {
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.status = 'active'
  RETURN count(f) AS live
}
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
RETURN total, live,
       [s00, s01, s02, s03, s04, s05, s06, s07, s08, s09, s10, s11, s12, s13, s14, s15] AS shards
