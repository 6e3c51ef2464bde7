"""The background consolidator: enrichment of facts after they are written, off the hot path.

Writes queue the facts they create; the consolidator (consolidator.py) works the queue in
batches with the enrichers (temporal.py: relative dates; mentions.py: known entities named in a
fact) and retires expired facts. `factgraph serve` runs it in a background thread (worker.py);
`factgraph consolidate` runs it in the foreground. See docs/consolidation.md.
"""

from graph.consolidation.consolidator import Consolidator, QueueStatus, RunSummary
from graph.consolidation.worker import BackgroundConsolidator, WorkerState, worker_of

__all__ = [
    "BackgroundConsolidator",
    "Consolidator",
    "QueueStatus",
    "RunSummary",
    "WorkerState",
    "worker_of",
]
