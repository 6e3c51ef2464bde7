"""mem0's platform API, served by factgraph: `MemoryClient(host=...)` keeps every call.

routes.py lists the routes; the service behind them is graph/mem0/ (docs/mem0.md).
"""
