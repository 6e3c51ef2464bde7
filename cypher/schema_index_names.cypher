// The name of every index, those backing a constraint included (they take its name): start-up
// skips the schema statements whose index or constraint is already there (graph/storage/schema.py).
SHOW INDEXES YIELD name RETURN name
