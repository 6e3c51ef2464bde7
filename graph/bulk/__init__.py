"""Batch jobs over the graph: import, export, completing Cypher loads, re-embedding, stats.

Operators move data in and out of factgraph in bulk, outside the request path of the service.
These jobs share the storage layer's property map (`graph.storage.store.fact_properties`) and the
same
entity and tag linking as a remembered fact, so what they write is indistinguishable from what
the service writes, and they are safe to re-run: every write is idempotent and long jobs resume.
"""
