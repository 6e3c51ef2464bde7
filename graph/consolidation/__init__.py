"""The background consolidator: enrichment of facts after they are written, off the hot path.

Writes queue the facts they create; the consolidator (consolidator.py) works the queue in
batches with the enrichers (temporal.py: relative dates; mentions.py: known entities named in a
fact) and retires expired facts. `factgraph serve` runs it in a background thread (worker.py);
`factgraph consolidate` runs it in the foreground. See docs/consolidation.md.

Each name loads its module on first use: the consolidator brings the recall engine and an HTTP
client with it, and every command's parser (factgraph/cli.py registers `consolidate` from
graph/consolidation/cli.py) is built by `factgraph mcp` too, which answers tools/list without
them.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOME = {
    "Consolidator": "graph.consolidation.consolidator",
    "QueueStatus": "graph.consolidation.consolidator",
    "RunSummary": "graph.consolidation.consolidator",
    "BackgroundConsolidator": "graph.consolidation.worker",
    "WorkerState": "graph.consolidation.worker",
    "worker_of": "graph.consolidation.worker",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)
