"""Whether the standing list bears on the query: how often a query about something else gets
one, and how often a query that bears on a statement still gets it, by floor and lift.

    .venv/bin/python bench/standing_relevance.py            # the table
    .venv/bin/python bench/standing_relevance.py --write    # and ship the background centroid

bench/data/standing_queries.json was written for this (no benchmark's text): 20 standing
statements of one user, two queries that bear on each (indirectly, as requests do: "what should
I cook tonight?" for "I'm vegetarian"), and 133 queries that bear on none. The even-numbered
unrelated queries make the background centroid (graph/search/standing.py `background`); the
odd-numbered ones measure the false-standing rate, so no query measures the centroid it made.
The statements are embedded as the write path stores them (the contextual line before the
text) and the queries as search embeds them; the list's rule (graph/search/standing.py
`bearing`: the absolute floor, the lift over the centroid, the top 5) is applied to the exact
similarities here, without Neo4j, which computes the same cosines. The BEAM check of the same
rule is bench/recall.py's `hit@10+standing`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.search import standing

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "standing_queries.json"
RESULTS = ROOT / "bench" / "results" / "standing_relevance.json"
FLOORS = (0.0, 0.86, 0.87, 0.88, 0.89)
LIFTS = (0.0, 0.01, 0.015, 0.02, 0.025, 0.03)
LIMIT = 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="ship the background centroid")
    args = parser.parse_args(argv)
    data = json.loads(DATA.read_text(encoding="utf-8"))
    embedder = Embedder(Settings.from_env())
    statements = np.array(
        embedder.embed([f"[on 07 December 2026] {t}" for t in data["statements"]])
    )

    def queries(texts: list[str]) -> np.ndarray:
        return np.array([embedder.embed_query(t) for t in texts])

    related = queries(data["related"])
    unrelated = queries(data["unrelated"])
    background, measured = unrelated[::2], unrelated[1::2]
    centroid = background.mean(axis=0)
    target = np.arange(len(related)) // 2  # two related queries per statement, in order
    rows: list[dict[str, Any]] = []
    for floor in FLOORS:
        for lift in LIFTS:
            kept_related = [
                int(target[i]) in kept(q, statements, centroid, floor, lift)
                for i, q in enumerate(related)
            ]
            any_unrelated = [bool(kept(q, statements, centroid, floor, lift)) for q in measured]
            rows.append(
                {
                    "floor": floor,
                    "lift": lift,
                    "related_kept": round(float(np.mean(kept_related)), 4),
                    "unrelated_with_any": round(float(np.mean(any_unrelated)), 4),
                }
            )
            print(
                f"floor {floor:.2f} lift {lift:.3f}: related statement kept (top {LIMIT}) "
                f"{rows[-1]['related_kept']:.2f}, unrelated queries given any "
                f"{rows[-1]['unrelated_with_any']:.2f}"
            )
    report = {
        "made_by": "bench/standing_relevance.py",
        "model": embedder.id,
        "queries": {"related": len(related), "unrelated_measured": len(measured)},
        "rows": rows,
    }
    if args.write:
        standing.BACKGROUND_FILE.write_text(
            json.dumps(
                {
                    "model": embedder.id,
                    "made_by": "bench/standing_relevance.py --write",
                    "queries": len(background),
                    "centroid": [float(v) for v in centroid],
                }
            )
            + "\n",
            encoding="utf-8",
        )
        RESULTS.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


def kept(
    query: np.ndarray, statements: np.ndarray, centroid: np.ndarray, floor: float, lift: float
) -> list[int]:
    """The statements the list hands this query, best first (graph/search/standing.py)."""
    score = (1.0 + statements @ query) / 2.0
    rise = statements @ (query - centroid)  # cos(q, s) - cos(c, s)
    order = np.argsort(-score, kind="stable")
    return [int(j) for j in order if score[j] >= floor and (lift <= 0 or rise[j] >= 2.0 * lift)][
        :LIMIT
    ]


if __name__ == "__main__":
    sys.exit(main())
