"""What a model costs to write with and to ask with, on the development sets' own texts.

For each model named (FACTGRAPH_MODEL names, as `factgraph` takes them), in turns so that every
model meets the same minutes of a shared machine: how fast it embeds the messages a write stores
(every window of every message, as `remember` and `factgraph import` embed them,
graph/write/chunks.py), and how long one search query's embedding takes. The texts are the first
conversations of each development set (LoCoMo turns, BEAM 100K and 500K messages), so long
messages weigh as they do on a real import. No Neo4j: the model alone. Not part of `make test`;
run it on a quiet machine.

    .venv/bin/python bench/model_speed.py local/e5-small-v2-int8 local/bge-small-en-v1.5-int8
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bench.devsets import beam, locomo
from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.write import chunks
from graph.write.validation import MAX_TEXT_CHARS

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"


def texts(per_set: int) -> tuple[list[str], list[str]]:
    """Messages to write and questions to ask: the first `per_set` of each set."""
    sets = [
        locomo(SHARED / "locomo" / "locomo-dev.json", 1),
        beam(SHARED / "beam" / "100K", 1, max_chars=MAX_TEXT_CHARS),
        beam(SHARED / "beam" / "500K", 1, max_chars=MAX_TEXT_CHARS),
    ]
    messages = [str(r["text"]) for convs in sets for r in convs[0].rows[:per_set]]
    questions = [q.text for convs in sets for q in convs[0].questions]
    return messages, questions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("models", nargs="+")
    parser.add_argument("--messages", type=int, default=300, help="per set")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    messages, questions = texts(args.messages)
    base = Settings.from_env()
    embedders = {m: Embedder(base.with_overrides(model_name=m)) for m in args.models}
    for embedder in embedders.values():  # warm: first runs allocate
        chunks.embed(embedder, [(t, t) for t in messages[:32]])
        embedder.embed_query.__wrapped__(embedder, questions[0])
    write: dict[str, list[float]] = {m: [] for m in args.models}
    query: dict[str, list[float]] = {m: [] for m in args.models}
    windows: dict[str, int] = {}
    for _ in range(args.rounds):
        for model, embedder in embedders.items():
            started = time.perf_counter()
            made = chunks.embed(embedder, [(t, t) for t in messages])
            write[model].append(len(messages) / (time.perf_counter() - started))
            windows[model] = sum(1 + len(m.chunks) for m in made)
            for q in questions:
                started = time.perf_counter()
                # Past the query cache (an lru_cache): every round embeds every question.
                embedder.embed_query.__wrapped__(embedder, q)
                query[model].append((time.perf_counter() - started) * 1000.0)
    report = {
        model: {
            "messages": len(messages),
            "windows": windows[model],
            "messages_per_s": [round(x, 1) for x in write[model]],
            "messages_per_s_median": round(statistics.median(write[model]), 1),
            "query_ms_p50": round(statistics.median(query[model]), 2),
            "query_ms_p95": round(statistics.quantiles(query[model], n=20)[-1], 2),
        }
        for model in args.models
    }
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
