// Active facts with the same subject and predicate: what a new single-valued fact contradicts.
MATCH (f:Fact)
WHERE f.scope = $scope AND f.subject_key = $subject_key AND f.predicate_key = $predicate_key
  AND f.status = 'active'
RETURN f {.*, embedding: null} AS fact
ORDER BY f.valid_from DESC, f.recorded_at DESC
