// bench/segments.py: remove its nodes in bounded transactions (auto-commit only).
MATCH (n:BenchSegments)
CALL (n) {
  DELETE n
} IN TRANSACTIONS OF 5000 ROWS
