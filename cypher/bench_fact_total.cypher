// How many facts the database holds, whatever their scope (bench/recall.py: full-text scores
// read the whole index's statistics, so facts of other scopes move a set's figures).
MATCH (f:Fact)
RETURN count(f) AS count
