"""Does the offline grader help? LoCoMo turn-level recall with and without the recall loop.

    .venv/bin/python -m bench.locomo_recall ../shared/data/locomo/locomo-dev.json
    .venv/bin/python -m bench.locomo_recall DATA.json --limit 1 --questions 50

Loads each conversation like bench/locomo.py (same facts, same measure: recall@k of evidence
turns among the top k hits, categories 1-4) and asks every question three ways: plain hybrid
search (one pass); `search_iterative` with the offline grader, where the local gate decides
which questions loop; and the same loop forced on every question. It also prints how many
questions the gate sent to the loop, how many abstained, and the mean passes per question.
The verdict decides `FACTGRAPH_OFFLINE_GRADER`'s default (off unless the loop helps).
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from bench.locomo import CATEGORIES, CATEGORY_NAMES, KS, Tally, dia, graded_questions, load
from graph.bulk.autocommit import delete_scope
from graph.config import Settings
from graph.memory import Memory
from graph.recall import DeepRecall, OfflineGrader
from graph.search import SearchOptions

WAYS = ("single", "gated", "forced")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("data", type=Path, help="a LoCoMo-shaped JSON file")
    parser.add_argument("--limit", type=int, default=0, help="first N conversations only")
    parser.add_argument("--questions", type=int, default=0, help="first N questions each")
    parser.add_argument("--max-iterations", type=int, default=3)
    args = parser.parse_args(argv)

    samples: list[dict[str, Any]] = json.loads(args.data.read_text(encoding="utf-8"))
    if args.limit:
        samples = samples[: args.limit]
    memory = Memory.connect(Settings.from_env())
    engine = DeepRecall(memory, grader=OfflineGrader())
    options = SearchOptions.build(top_k=max(KS), related_limit=0, track_access=False)
    tally = Tally()
    stats: Counter[str] = Counter()
    run_id = uuid.uuid4().hex[:8]
    scopes: list[str] = []
    started = time.perf_counter()
    try:
        for sample in samples:
            scope = f"locomo-recall-{run_id}-{sample['sample_id']}"
            scopes.append(scope)
            load(memory, scope, sample, captions=False)
            for qa, gold in graded_questions(sample, args.questions):
                question, category = str(qa["question"]), int(qa["category"])
                single = memory.search(scope, question, options=options)
                tally.add("single", category, gold, [dia(h.fact) for h in single.hits], [])
                for way, forced in (("gated", False), ("forced", True)):
                    result = engine.search_iterative(
                        scope,
                        question,
                        options,
                        max_iterations=args.max_iterations,
                        force_hard=forced,
                    )
                    tally.add(way, category, gold, [dia(h.fact) for h in result.hits], [])
                    stats[f"{way}.questions"] += 1
                    stats[f"{way}.passes"] += len(result.passes)
                    stats[f"{way}.looped"] += int(len(result.passes) > 1)
                    stats[f"{way}.abstained"] += int(result.abstained)
                    stats[f"{way}.hard"] += int(result.hard)
    finally:
        for scope in scopes:
            delete_scope(memory.db, scope)
        memory.close()

    header = f"{'way':<8}{'measure':<8}" + "".join(
        f"{CATEGORY_NAMES[c][:11]:>12}" for c in CATEGORIES
    )
    print(header + f"{'overall':>10}")
    for way in WAYS:
        for k in KS:
            cells = "".join(f"{tally.recall(way, f'R@{k}', c):>12.3f}" for c in CATEGORIES)
            print(f"{way:<8}{'R@' + str(k):<8}{cells}{tally.recall(way, f'R@{k}', None):>10.3f}")
    for way in ("gated", "forced"):
        n = max(stats[f"{way}.questions"], 1)
        print(
            f"{way}: {stats[f'{way}.hard']} of {n} questions judged hard, "
            f"{stats[f'{way}.looped']} looped, {stats[f'{way}.abstained']} abstained, "
            f"{stats[f'{way}.passes'] / n:.2f} passes per question"
        )
    print(f"elapsed {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
