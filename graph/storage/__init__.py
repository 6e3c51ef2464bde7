"""Talking to Neo4j: named Cypher files, the schema, transactions, and domain <-> rows."""
