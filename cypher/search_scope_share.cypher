// How much of the vector and full-text indexes one scope's live facts make up (search over-fetch,
// graph/search/candidates.py). The total comes from the count store; the scope's count walks
// the (scope, status) range index, and is cached by the caller for a while.
CALL () {
  MATCH (f:Fact)
  RETURN count(f) AS total
}
CALL () {
  MATCH (f:Fact)
  WHERE f.scope = $scope AND f.status = 'active'
  RETURN count(f) AS live
}
RETURN total, live
