"""mem0's platform API under /v1/, /v2/, /v3/: `MemoryClient(host=...)` keeps every call.

routes.py lists the routes; the service behind them is graph/adapters/mem0/ (docs/mem0.md).
"""
