// Which of $ids name no fact of the scope that can still be shown (pins must point at one).
UNWIND $ids AS wanted
OPTIONAL MATCH (f:Fact {id: wanted})
  WHERE f.scope = $scope AND f.status <> 'forgotten'
WITH wanted, f
WHERE f IS NULL
RETURN collect(wanted) AS missing
