// How many facts lack their status label (:Active, :Quarantined, :Superseded, :Forgotten): facts
// written before the labels existed. Five counts from the count store, so the check costs
// nothing at start-up however large the database.
CALL () { MATCH (f:Fact) RETURN count(f) AS facts }
CALL () { MATCH (f:Active) RETURN count(f) AS active }
CALL () { MATCH (f:Quarantined) RETURN count(f) AS quarantined }
CALL () { MATCH (f:Superseded) RETURN count(f) AS superseded }
CALL () { MATCH (f:Forgotten) RETURN count(f) AS forgotten }
RETURN facts - active - quarantined - superseded - forgotten AS missing
