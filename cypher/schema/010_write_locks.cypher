// Writers of one subject / predicate slot take turns (cypher/write_lock.cypher): the lock is a
// node that lives only inside the writing transaction, and this constraint is what makes a
// second writer's MERGE wait until the first commits. No :WriteLock node is ever committed.
CREATE CONSTRAINT write_lock_key IF NOT EXISTS FOR (l:WriteLock) REQUIRE (l.scope, l.key) IS UNIQUE;
