// What remember_many's pipeline looks at before deciding a whole batch, in one round trip
// (the batch form of cypher/fact_write_context.cypher): the locks of every slot the batch
// writes, taken first and in the caller's (sorted) order so two batches never wait on each
// other in a cycle; the live fact holding each content hash; how many live facts the scope
// holds, counted up to $live_cap; and the active facts of each subject / predicate slot.
CALL () {
  UNWIND $lock_keys AS key
  MERGE (l:WriteLock {scope: $scope, key: key})
  DELETE l
}
CALL () {
  UNWIND $hashes AS hash
  MATCH (d:Fact)
  WHERE d.scope = $scope AND d.live_hash = hash
  RETURN collect(d {.*, embedding: null}) AS duplicates
}
CALL () {
  MATCH (c:Fact)
  WHERE c.scope = $scope AND c.status = 'active'
  WITH c LIMIT $live_cap
  RETURN count(c) AS live
}
CALL () {
  UNWIND $slots AS slot
  MATCH (s:Fact)
  WHERE s.scope = $scope AND s.subject_key = slot.subject_key
    AND s.predicate_key = slot.predicate_key AND s.status = 'active'
  RETURN collect(s {.*, embedding: null}) AS slot_facts
}
RETURN duplicates, live, slot_facts
