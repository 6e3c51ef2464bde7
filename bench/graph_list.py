"""The graph list of terms (graph/search/graph_list.py) on kept development stores: the list
alone, the default, and the default with it, per set, per question type and per chat.

Asks every question of the conversations that `bench/recall.py --keep TAG` kept whole, three
ways (same kept store, one process, interleaved question by question so the machine's load
falls on all three alike), after `factgraph read-texts` has linked the kept facts' terms:

    .venv/bin/python bench/recall.py --sets locomo-dev,beam-dev --keep r63 --no-record
    .venv/bin/factgraph read-texts
    .venv/bin/python bench/graph_list.py --keep r63 --data ../shared/data
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.devsets import Conversation, beam, key, locomo
from bench.recall import dedupe, loaded, measures
from graph.config import Settings
from graph.memory import Memory
from graph.search.options import Fusion, SearchOptions

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
WAYS = {
    "default": SearchOptions(),
    "default+graph": SearchOptions(fusion=Fusion(terms=1.0)),
    "graph alone": SearchOptions(
        fusion=Fusion(fulltext=0.0, vector=0.0, graph=0.0, passage=0.0, terms=1.0)
    ),
}
MEASURES = ("hit@10", "R@10")


def ask(memory: Memory, scope: str, conversation: Conversation) -> dict[str, Any]:
    """Per way: sums of each measure per question type, and the chat's mean R@10."""
    sums: dict[str, dict[str, dict[str, float]]] = {
        w: defaultdict(lambda: defaultdict(float)) for w in WAYS
    }
    for q in conversation.questions:
        if not q.gold:
            continue
        for way, options in WAYS.items():
            result = memory.search(scope, q.text, options=dataclasses.replace(options))
            ranked = dedupe(
                (key(h.fact.session_id, h.fact.turn) for h in result.hits),
                (h.relevance for h in result.hits),
            )
            values = measures(q, ranked)
            for kind in (q.kind, "overall"):
                sums[way][kind]["n"] += 1
                for m in MEASURES:
                    sums[way][kind][m] += values[m]
    return {w: {k: dict(v) for k, v in s.items()} for w, s in sums.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", required=True, help="the tag of bench/recall.py --keep")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "graph_list.json")
    parser.add_argument("--weight", type=float, default=1.0, help="the graph list's in the fusion")
    args = parser.parse_args()
    WAYS["default+graph"] = SearchOptions(fusion=Fusion(terms=args.weight))
    sets = {
        "locomo-dev": locomo(args.data / "locomo" / "locomo-dev.json"),
        "beam-dev": beam(args.data / "beam" / "100K", max_chars=64_000),
    }
    report: dict[str, Any] = {}
    with Memory.connect(Settings.from_env()) as memory:
        for name, conversations in sets.items():
            totals: dict[str, dict[str, dict[str, float]]] = {
                w: defaultdict(lambda: defaultdict(float)) for w in WAYS
            }
            chats: dict[str, dict[str, float]] = {}
            for conversation in conversations:
                scope = f"recall-{args.keep}-{name}-{conversation.name}"
                if not loaded(memory, scope, conversation):
                    continue
                sums = ask(memory, scope, conversation)
                chats[conversation.name] = {
                    w: round(sums[w]["overall"]["R@10"] / sums[w]["overall"]["n"], 4) for w in WAYS
                }
                for w in WAYS:
                    for kind, values in sums[w].items():
                        for m, v in values.items():
                            totals[w][kind][m] += v
                print(name, conversation.name, chats[conversation.name], flush=True)
            table = {
                w: {
                    kind: {m: round(v[m] / v["n"], 3) for m in MEASURES} | {"n": int(v["n"])}
                    for kind, v in totals[w].items()
                }
                for w in WAYS
            }
            gains = sum(c["default+graph"] > c["default"] for c in chats.values())
            losses = sum(c["default+graph"] < c["default"] for c in chats.values())
            report[name] = {
                "ways": table,
                "chats": chats,
                "default+graph vs default, chats (R@10)": {"gain": gains, "lose": losses},
                "weight": args.weight,
            }
            print(json.dumps(report[name], indent=1), flush=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
