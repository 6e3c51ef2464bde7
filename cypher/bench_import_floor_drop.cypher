// bench/import_speed.py floor: remove its nodes in bounded transactions (auto-commit only).
MATCH (f:BenchFloorFact)
CALL (f) {
  DELETE f
} IN TRANSACTIONS OF 5000 ROWS
