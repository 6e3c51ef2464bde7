"""`factgraph consolidate [--scope S] [--requeue] [--status]`: the consolidator in the foreground.

For batch jobs (after a large import, say) and for a service run with FACTGRAPH_CONSOLIDATE=off:
the same work as the background worker of `factgraph serve`, at full speed, until the queue is
empty. One line per committed batch goes to stdout, so a script can follow the progress.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable

from graph.config import Settings

Handler = Callable[[argparse.Namespace, Settings], int]


def cmd_consolidate(args: argparse.Namespace, settings: Settings) -> int:
    from graph.consolidation.consolidator import Consolidator
    from graph.memory import Memory
    from graph.platform.neo4j_start import ensure_neo4j

    ensure_neo4j(settings)
    if args.batch is not None:
        if not 1 <= args.batch <= 1000:
            raise ValueError("--batch must be between 1 and 1000")
        settings = settings.with_overrides(
            consolidation=dataclasses.replace(settings.consolidation, batch_size=args.batch)
        )
    with Memory.connect(settings) as memory:
        consolidator = Consolidator(memory)
        if args.requeue:
            if args.scope is None:
                raise ValueError("--requeue needs --scope")
            print(f"queued {consolidator.requeue(args.scope)} facts of {args.scope!r} again")
        if args.status:
            if args.scope is None:
                scopes = consolidator.queued_scopes()
                print(json.dumps([{"scope": s.scope, "queued": s.queued} for s in scopes]))
            else:
                status = consolidator.status(args.scope)
                print(
                    json.dumps(
                        {
                            "scope": status.scope,
                            "queued": status.queued,
                            "lag_seconds": status.lag_seconds,
                        }
                    )
                )
            return 0

        def progress(scope: str, done: int) -> None:
            print(f"consolidated {done} facts of {scope!r}", flush=True)

        try:
            summary = consolidator.run(args.scope, on_batch=progress)
        finally:
            consolidator.close()
        print(
            f"done: {summary.facts} facts in {summary.batches} batches, "
            f"{summary.expired} expired, {summary.rate:.1f} facts/s "
            f"(enrichers: {', '.join(consolidator.enrichers) or 'none'})",
            file=sys.stderr,
        )
    return 0


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], handlers: dict[str, Handler]
) -> None:
    p = sub.add_parser(
        "consolidate",
        help="work the consolidation queue in the foreground until it is empty "
        "(what `serve` does in the background)",
    )
    p.add_argument("--scope", help="this scope only (default: every scope, longest waiting first)")
    p.add_argument(
        "--requeue", action="store_true", help="queue the scope's live facts again first"
    )
    p.add_argument("--status", action="store_true", help="show the queue and do nothing else")
    p.add_argument("--batch", type=int, help="facts per transaction (FACTGRAPH_CONSOLIDATE_BATCH)")
    handlers["consolidate"] = cmd_consolidate
