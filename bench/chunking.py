"""Long messages whole: chunks per second through remember_many against the bare model.

Reads BEAM conversations (a folder of `N/chat.json`, by default ../shared/data/beam/100K: read
its README; the data is never copied into the project) and stores each message as the BEAM
README says: text "role: content", session the batch, turn the message id, valid from the
batch's time anchor. A message longer than a fact may hold (MAX_TEXT_CHARS) is stored in parts
that carry the message id in their metadata.

A text past the model's window is embedded in windows (graph/write/chunks.py): the first is the
fact's own vector, the others its chunks. Reported:

  windows      per message: how many (a histogram, percentiles), how many messages are cut
               at all, and the chunks (windows after the first) they make.
  model        `Embedder.embed` on exactly the texts remember_many embeds for these messages
               (every window with its context): windows per second, the ceiling.
  before       `Embedder.embed` on one text per message, the whole index text (the model reads
               its first window and drops the rest): what the model cost before chunks.
  remember_many  the messages in batches of --batch, full pipeline, into a fresh scope:
               windows and facts per second, and windows per second against the model's, each
               run right after a model run on the same texts (the machine's speed drifts);
               the median of --repeats pairs. The chunk nodes written are counted and must be
               the windows after the first of every message inserted.

Every scope written is deleted afterwards. Take timings on a quiet machine only:

    .venv/bin/python bench/chunking.py --shape-only           # windows per message only
    .venv/bin/python bench/chunking.py --messages 50          # a quick check that it works
    .venv/bin/python bench/chunking.py --out bench/results/chunking.json   # all 2,432
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph.bulk.autocommit import delete_scope
from graph.config import Settings
from graph.memory import Memory
from graph.write import chunks
from graph.write.indexing import index_text
from graph.write.validation import MAX_TEXT_CHARS, fact_from_mapping

DATA = Path("../shared/data/beam/100K")


def anchor(text: str | None) -> str | None:
    """A BEAM time anchor ("March-15-2024") as ISO-8601."""
    if not text:
        return None
    return datetime.strptime(text, "%B-%d-%Y").replace(tzinfo=UTC).isoformat()


def messages(folder: Path, limit: int) -> list[dict[str, Any]]:
    """The messages of every chat in `folder`, in order, as facts (at most `limit`, 0: all)."""
    chats = sorted(
        folder.glob("*/chat.json"),
        key=lambda p: (0, int(p.parent.name)) if p.parent.name.isdigit() else (1, p.parent.name),
    )
    if not chats:
        raise SystemExit(f"{folder}: no */chat.json (see ../shared/data/beam/README.md)")
    rows: list[dict[str, Any]] = []
    for chat in chats:
        for batch in json.loads(chat.read_text(encoding="utf-8")):
            for turn in batch["turns"]:
                for message in turn:
                    text = f"{message['role']}: {message['content']}"
                    for n, start in enumerate(range(0, len(text), MAX_TEXT_CHARS)):
                        rows.append(
                            {
                                "text": text[start : start + MAX_TEXT_CHARS],
                                "session_id": f"{chat.parent.name}-{batch['batch_number']}",
                                "turn": int(message["id"]),
                                "valid_from": anchor(
                                    message.get("time_anchor") or batch.get("time_anchor")
                                ),
                                "metadata": {"chat": chat.parent.name, "message": message["id"]}
                                | ({"part": n} if len(text) > MAX_TEXT_CHARS else {}),
                            }
                        )
                    if limit and len(rows) >= limit:
                        return rows[:limit]
    return rows


def plan(memory: Memory, rows: list[dict[str, Any]]) -> tuple[list[list[str]], list[str]]:
    """Per message, the texts remember_many embeds for its windows; and its whole index text."""
    windows: list[list[str]] = []
    whole: list[str] = []
    for row in rows:
        fact = fact_from_mapping(row)
        text = index_text(
            fact, fact.valid_from or datetime.now(UTC), memory.settings.contextual_indexing
        )
        windows.append([t for _, _, t in chunks.windows(memory.embedder, text, fact.text)])
        whole.append(text)
    return windows, whole


def shape(windows: list[list[str]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    counts = [len(w) for w in windows]
    ordered = sorted(counts)

    def pct(p: float) -> int:
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]

    return {
        "messages": len(counts),
        "median_chars": statistics.median(len(r["text"]) for r in rows),
        "windows": sum(counts),
        "chunks": sum(counts) - len(counts),
        "cut": sum(c > 1 for c in counts),
        "cut_share": round(sum(c > 1 for c in counts) / len(counts), 3),
        "windows_per_message": {
            "mean": round(sum(counts) / len(counts), 2),
            "p50": pct(0.5),
            "p90": pct(0.9),
            "p99": pct(0.99),
            "max": ordered[-1],
        },
        "histogram": dict(sorted(Counter(counts).items())),
    }


def model_rate(memory: Memory, texts: list[str]) -> float:
    """Texts per second of `Embedder.embed` (shortest first, FACTGRAPH_EMBED_BATCH)."""
    start = time.perf_counter()
    memory.embedder.embed(texts)
    return len(texts) / (time.perf_counter() - start)


def chunk_nodes(memory: Memory, scope: str) -> tuple[int, int]:
    """Facts and chunk nodes the scope holds."""
    records, _, _ = memory.db.driver.execute_query(
        "CALL () { MATCH (f:Fact {scope: $scope}) RETURN count(f) AS facts } "
        "CALL () { MATCH (c:Chunk {scope: $scope}) RETURN count(c) AS chunks } "
        "RETURN facts, chunks",
        scope=scope,
        database_=memory.db.name,
    )
    return int(records[0]["facts"]), int(records[0]["chunks"])


def remember_many(
    memory: Memory, rows: list[dict[str, Any]], windows: list[list[str]], size: int
) -> dict[str, Any]:
    """One remember_many run into a fresh scope, right after the model on the same texts."""
    texts = [t for w in windows for t in w]
    model = model_rate(memory, texts)
    scope = f"bench-chunking-{uuid.uuid4().hex[:8]}"
    try:
        start = time.perf_counter()
        kinds: Counter[str] = Counter()
        inserted: list[int] = []
        for offset in range(0, len(rows), size):
            decisions = memory.remember_many(scope, rows[offset : offset + size], actor="bench")
            for i, decision in enumerate(decisions):
                kinds[decision.kind.value] += 1
                if decision.kind.value in ("insert", "supersede", "quarantine"):
                    inserted.append(offset + i)
        seconds = time.perf_counter() - start
        facts, nodes = chunk_nodes(memory, scope)
    finally:
        delete_scope(memory.db, scope)
    expected = sum(len(windows[i]) - 1 for i in inserted)
    if nodes != expected:
        raise SystemExit(f"{nodes} chunk nodes written, {expected} expected")
    return {
        "seconds": round(seconds, 2),
        "windows_per_s": round(len(texts) / seconds, 1),
        "facts_per_s": round(len(rows) / seconds, 1),
        "model_windows_per_s_just_before": round(model, 1),
        "vs_model": round(len(texts) / seconds / model, 2),
        "facts_written": facts,
        "chunk_nodes": nodes,
        "decisions": dict(kinds),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("data", type=Path, nargs="?", default=DATA, help="folder of N/chat.json")
    parser.add_argument("--messages", type=int, default=0, help="first N messages only (0: all)")
    parser.add_argument("--batch", type=int, default=100, help="facts per remember_many call")
    parser.add_argument("--repeats", type=int, default=3, help="model / remember_many pairs")
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    parser.add_argument(
        "--shape-only", action="store_true", help="only count the windows (no timing, no writes)"
    )
    args = parser.parse_args()

    rows = messages(args.data, args.messages)
    with Memory.connect(Settings.from_env()) as memory:
        windows, whole = plan(memory, rows)
        if args.shape_only:
            print(json.dumps(shape(windows, rows), indent=2))
            return 0
        texts = [t for w in windows for t in w]
        memory.embedder.embed(texts[:32])  # warm the session
        runs = [remember_many(memory, rows, windows, args.batch) for _ in range(args.repeats)]
        result = {
            "data": str(args.data),
            "embedder": memory.embedder.id,
            "batch": args.batch,
            **shape(windows, rows),
            "model_windows_per_s": round(model_rate(memory, texts), 1),
            "before_model_facts_per_s": round(model_rate(memory, whole), 1),
            "remember_many": sorted(runs, key=lambda r: r["vs_model"])[len(runs) // 2],
            "runs": runs,
        }
    text = json.dumps(result, indent=2)
    print(text)
    if args.out is not None:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
