// Whether the database holds anything at all: `factgraph import --initial` only writes into an
// empty one (graph/bulk/initial.py).
MATCH (n) RETURN count(n) AS n
