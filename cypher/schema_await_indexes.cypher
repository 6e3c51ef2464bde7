// Start-up waits until every index is ONLINE, so the first search never meets a populating one.
CALL db.awaitIndexes($seconds)
