"""Fit and cross-validate the search's relevance model on candidates dumped by bench/recall.py.

    .venv/bin/python bench/recall.py --dump bench/results/candidates.jsonl --no-record
    .venv/bin/python bench/ranker.py bench/results/candidates.jsonl            # compare, fit
    .venv/bin/python bench/ranker.py DUMP --write graph/search/relevance.json   # ship it

The relevance of a hit is a logistic model of what Neo4j's indexes say of that one fact alone
(the cosine of its vector to the question's, its full-text and passage BM25 scores, how many
content words the question has): the chance that it is evidence. It depends on nothing else in
the candidate pool, so a caller can threshold it, and it ranks across lists without min-max
normalising each. This script fits it on one development set and measures the other (both
directions), beside COMBSUM (the earlier default) and each list alone, then fits it on both
sets together and writes the coefficients the service loads (graph/search/relevance.py).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.devsets import Question
from bench.recall import MEASURES, Ranked, auc, dedupe, measures
from graph.search.lucene import terms
from graph.search.newer import Timed, reorder, same_thing
from graph.search.relevance import (
    FEATURES,
    NO_COSINE,
    STANDING_LISTS,
    Relevance,
    features,
    standings,
)
from graph.search.subjects import named, subject_key

Row = dict[str, Any]
Scorer = Callable[[Row], dict[str, float]]  # a question's candidates -> fid -> score


def read(path: Path) -> list[Row]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def question(row: Row) -> Question:
    return Question(
        text=row["question"],
        kind=row["kind"],
        gold=frozenset(row["gold"]),
        updated=frozenset(row["updated"]),
        original=frozenset(row["original"]),
    )


def matrix(rows: Sequence[Row]) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate's features and its label (evidence or not), over the rows."""
    xs: list[list[float]] = []
    ys: list[float] = []
    for row in rows:
        gold = set(row["gold"])
        xs.extend(row_features(row).values())
        ys.extend(1.0 if c["key"] in gold else 0.0 for c in row["candidates"].values())
    return np.array(xs), np.array(ys)


def row_features(row: Row) -> dict[str, list[float]]:
    """Each candidate's features, as graph/search/relevance.py's `scored` makes them."""
    question_ = row["question"]
    n_terms = len(terms(question_))
    cands = row["candidates"]
    names = named(question_, (c.get("subject") for c in cands.values()))
    the_one = next(iter(names)) if len(names) == 1 else None
    stand = standings(
        {
            name: [(fid, c["lists"][name][1]) for fid, c in cands.items() if name in c["lists"]]
            for name in STANDING_LISTS
        }
    )
    out = {}
    for fid, cand in cands.items():
        lists = cand["lists"]
        cosine = cand["cosine"] if cand["cosine"] is not None else NO_COSINE
        subject = cand.get("subject")
        out[fid] = features(
            cosine=cosine,
            fulltext=lists["fulltext"][1] if "fulltext" in lists else 0.0,
            passage=lists["passage"][1] if "passage" in lists else 0.0,
            query_terms=n_terms,
            subject=the_one is not None and subject is not None and subject_key(subject) == the_one,
            standing=stand.get(fid, (0.0, 0.0, 0.0)),
        )
    return out


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, balance: bool = True) -> np.ndarray:
    """Logistic regression by Newton's method; returns [bias, *weights].

    `balance` weighs the positives up to the negatives' total, so the sets' different
    shares of evidence among candidates move the bias less than the slopes.
    """
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    sample = np.ones(len(y))
    if balance and y.sum() > 0:
        sample = np.where(y > 0, (len(y) - y.sum()) / y.sum(), 1.0)
    reg = l2 * np.eye(xb.shape[1])
    reg[0, 0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (sample * (p - y)) + reg @ w
        hess = (xb * (sample * p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def model_scorer(model: Relevance) -> Scorer:
    def score(row: Row) -> dict[str, float]:
        return {fid: model.probability(x) for fid, x in row_features(row).items()}

    return score


def combsum(row: Row) -> dict[str, float]:
    """The earlier default: each list's min-max normalised scores, summed."""
    out: dict[str, float] = defaultdict(float)
    for name in ("fulltext", "vector", "passage"):
        values = {
            f: c["lists"][name][1] for f, c in row["candidates"].items() if name in c["lists"]
        }
        if not values:
            continue
        low, high = min(values.values()), max(values.values())
        for f, v in values.items():
            out[f] += 1.0 if high <= low else (v - low) / (high - low)
    return dict(out)


def single(name: str) -> Scorer:
    def score(row: Row) -> dict[str, float]:
        return {
            f: -float(c["lists"][name][0])
            for f, c in row["candidates"].items()
            if name in c["lists"]
        }

    return score


def ranked(row: Row, scores: dict[str, float], newer: float | None = None) -> Ranked:
    order = sorted(scores, key=lambda f: -scores[f])
    cands = row["candidates"]
    shown = [scores[f] for f in order]
    if newer is not None:
        order, shown = newer_first(row, order, shown, newer)
    return dedupe((cands[f]["key"] for f in order), shown)


def newer_first(
    row: Row, order: list[str], scores: list[float], floor: float, depth: int = 10
) -> tuple[list[str], list[float]]:
    """graph/search/newer.py's rule over a dumped question: among the top `depth`, a candidate
    newer than a higher one of the same subject moves above it when both have a relevance of
    at least `floor`."""
    cands = row["candidates"]
    top, rest = order[:depth], order[depth:]
    top_scores, rest_scores = scores[:depth], scores[depth:]
    items = [newer_item(fid, cands[fid], s) for fid, s in zip(top, top_scores, strict=True)]
    score_of = dict(zip(top, top_scores, strict=True))

    def same(a: str, b: str) -> bool:
        subject_a, subject_b = cands[a].get("subject"), cands[b].get("subject")
        return same_thing(score_of[a], score_of[b], subject_a, subject_b, floor)

    moved = reorder(items, same)
    return [m.id for m in moved] + rest, [m.score for m in moved] + rest_scores


def newer_item(fid: str, cand: Row, score: float) -> Timed:
    return Timed(fid, score, (cand.get("valid_from") or "", cand.get("turn") or 0))


def evaluate(rows: Sequence[Row], scorer: Scorer, newer: float | None = None) -> dict[str, float]:
    """Each measure averaged over questions, and the AUC of the top-10 hits' scores."""
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    pos: list[float] = []
    neg: list[float] = []
    for row in rows:
        q = question(row)
        r = ranked(row, scorer(row), newer)
        for name, value in measures(q, r).items():
            sums[name] += value
            counts[name] += 1
        for k, s in zip(r.keys[:10], r.scores[:10], strict=True):
            (pos if k in q.gold else neg).append(s)
    out = {name: round(sums[name] / counts[name], 4) for name in sums}
    out["auc"] = auc(pos, neg) or 0.0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("dump", type=Path)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--write", type=Path, default=None, help="write the model fit on both")
    parser.add_argument(
        "--newer", type=float, nargs="*", default=None, help="relevance floors to try (newer first)"
    )
    args = parser.parse_args(argv)
    rows = read(args.dump)
    by_set: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_set[row["set"]].append(row)
    names = sorted(by_set)
    models = {}
    for name in names:
        x, y = matrix(by_set[name])
        models[name] = Relevance.of(fit(x, y, args.l2).tolist())
    x, y = matrix(rows)
    both = Relevance.of(fit(x, y, args.l2).tolist())
    scorers: dict[str, Scorer] = {
        "combsum": combsum,
        "fulltext": single("fulltext"),
        "vector": single("vector"),
        "passage": single("passage"),
        "model(both)": model_scorer(both),
    }
    for name in names:
        scorers[f"model({name})"] = model_scorer(models[name])
    for name in names:
        shown = (*MEASURES.get(name, ()), "auc")
        print(f"\n{name} ({len(by_set[name])} questions)")
        print(f"{'ranking':<22}" + "".join(f"{m:>15}" for m in shown))
        for label, scorer in scorers.items():
            figures = evaluate(by_set[name], scorer)
            print(f"{label:<22}" + "".join(f"{figures.get(m, math.nan):>15.3f}" for m in shown))
    if args.newer:
        print("\nnewer first (the model fit on both), by the relevance both hits need:")
        for name in names:
            shown = (*MEASURES.get(name, ()), "auc")
            print(f"\n{name}\n{'floor':<22}" + "".join(f"{m:>15}" for m in shown))
            for floor in [None, *args.newer]:
                figures = evaluate(by_set[name], model_scorer(both), floor)
                label = "off" if floor is None else str(floor)
                print(f"{label:<22}" + "".join(f"{figures.get(m, math.nan):>15.3f}" for m in shown))
    print("\ncoefficients (bias first):", FEATURES)
    for label, model in [*models.items(), ("both", both)]:
        print(f"  {label:<12} {[round(w, 3) for w in model.weights]}")
    if args.write:
        about = {
            "trained_by": "bench/ranker.py "
            + " ".join(sys.argv[1:] if argv is None else argv).replace(str(args.dump), "DUMP"),
            "dump_made_by": "bench/recall.py --dump DUMP (both development sets)",
            "questions": {name: len(by_set[name]) for name in names},
            "candidates": len(y),
            "l2": args.l2,
        }
        args.write.write_text(both.to_json(**about) + "\n", encoding="utf-8")
        print(f"written {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
