"""Fit and cross-validate the search's relevance model on candidates dumped by bench/recall.py.

    .venv/bin/python bench/recall.py --dump bench/results/candidates.jsonl --no-record
    .venv/bin/python bench/ranker.py bench/results/candidates.jsonl --newer 0.7 0.85 0.9
    .venv/bin/python bench/ranker.py DUMP --write graph/search/relevance.json   # ship it
    .venv/bin/python bench/ranker.py DUMP --ceiling    # what more signals could reach

A hit's relevance is a logistic model of what Neo4j's indexes say of that one fact alone (the
vector score of its best window, its full-text and passage BM25 scores, how many content words
the question has, whether the question names its subject): the chance that it is evidence. It
depends on nothing else in the candidate pool, so a caller can threshold it. This script
replays the engine's rankings offline over the dumped candidates, so each choice is measured on
the same pools:

- each list alone and COMBSUM (the default order), with the chunks' discount;
- the model as an order (MODEL fusion), fit on one development set and scored on the other
  (both directions), and fit on both;
- the ROC AUC of the relevance of the default's top-10 hits, evidence against the others, for
  each fit: how well the score a caller thresholds separates them;
- the newer-first rule (graph/search/newer.py) over the default order, by the relevance floor.

It then fits the model on both sets together and writes the coefficients the service loads.

`--ceiling` asks how far the AUC could go with what the engine knows: the model fit and scored
on the same set (five folds of its questions, so the best case), with the shipped features, with
the text's length, with each list's rank of the candidate (which depends on the pool, so a
threshold could not use it), and with both.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bench.devsets import Question
from bench.recall import MEASURES, Ranked, auc, dedupe, measures
from graph.search import fusion
from graph.search.candidates import Brief, Candidates
from graph.search.engine import text_factors
from graph.search.lexical import query_stems, scores
from graph.search.newer import FLOOR, Timed, reorder, updates
from graph.search.options import (
    DEFAULT_CHUNK_DISCOUNT,
    DEFAULT_SUBJECT_BOOST,
    DEFAULT_TEXT_MATCH_CHARS,
)
from graph.search.relevance import FEATURES, NO_COSINE, Relevance, features
from graph.search.scoring import normalise
from graph.search.subjects import boosted, named, subject_key

Row = dict[str, Any]
Scorer = Callable[[Row], dict[str, float]]  # a question's candidates -> fid -> score
LISTS = ("fulltext", "vector", "passage")
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)  # briefs' times: the order does not read them


def read(path: Path, discount: float = DEFAULT_CHUNK_DISCOUNT) -> list[Row]:
    """The dumped questions, each candidate's vector score as search reads it at `discount`:
    the best of its own vector's and its best chunk's less the discount. The vector list is
    ordered again by it (its members stay those the dump's run found)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        for cand in row["candidates"].values():
            own, window = cand.get("own"), cand.get("window")
            if own is not None:
                cand["cosine"] = own if window is None else max(own, window - discount)
                if "vector" in cand["lists"]:
                    cand["lists"]["vector"][1] = cand["cosine"]
        members = [c for c in row["candidates"].values() if "vector" in c["lists"]]
        members.sort(key=lambda c: -c["lists"]["vector"][1])
        for rank, cand in enumerate(members, start=1):
            cand["lists"]["vector"][0] = rank
    return rows


def question(row: Row) -> Question:
    return Question(
        text=row["question"],
        kind=row["kind"],
        gold=frozenset(row["gold"]),
        updated=frozenset(row["updated"]),
        original=frozenset(row["original"]),
    )


def row_features(row: Row) -> dict[str, list[float]]:
    """Each candidate's features, as graph/search/relevance.py's `relevances` makes them."""
    question_ = row["question"]
    query_terms = query_stems(question_)
    cands = row["candidates"]
    names = named(question_, {c.get("subject") for c in cands.values()})
    out = {}
    for fid, cand in cands.items():
        subject = cand.get("subject")
        held, coverage, char_coverage = scores(query_terms, cand.get("matched") or ())
        out[fid] = features(
            cosine=cand["cosine"] if cand["cosine"] is not None else NO_COSINE,
            matched=held,
            coverage=coverage,
            char_coverage=char_coverage,
            subject=bool(subject) and subject_key(subject) in names,
        )
    return out


def matrix(rows: Sequence[Row]) -> tuple[np.ndarray, np.ndarray]:
    """Every candidate's features and its label (evidence or not), over the rows."""
    xs: list[list[float]] = []
    ys: list[float] = []
    for row in rows:
        gold = set(row["gold"])
        xs.extend(row_features(row).values())
        ys.extend(1.0 if c["key"] in gold else 0.0 for c in row["candidates"].values())
    return np.array(xs), np.array(ys)


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


EXTRAS = {
    "shipped features": (),
    "+ length": ("length",),
    "+ list ranks (pool)": ("ranks",),
    "+ length + list ranks": ("length", "ranks"),
}


def extra_features(cand: dict[str, Any], extras: Sequence[str]) -> list[float]:
    """Signals the shipped model leaves out: the text's length (log characters) and the
    candidate's rank in each list (log; 6 where the list did not find it, past its 100th)."""
    out: list[float] = []
    if "length" in extras:
        out.append(math.log1p(cand.get("chars") or 0))
    if "ranks" in extras:
        lists = cand["lists"]
        out += [math.log(lists[n][0]) if n in lists else 6.0 for n in LISTS]
    return out


def ceiling(rows: Sequence[Row], folds: int = 5) -> dict[str, float]:
    """The top-10 hits' AUC of a model fit on the other folds of the same set's questions,
    for each set of features in EXTRAS."""
    out: dict[str, float] = {}
    tops = []
    for row in rows:
        scores = combsum(row)
        tops.append(set(sorted(scores, key=lambda f: -scores[f])[:10]))
    for label, extras in EXTRAS.items():
        xs: list[list[float]] = []
        ys: list[float] = []
        fold: list[int] = []
        top: list[bool] = []
        for number, (row, best) in enumerate(zip(rows, tops, strict=True)):
            gold = set(row["gold"])
            for fid, x in row_features(row).items():
                cand = row["candidates"][fid]
                xs.append([*x, *extra_features(cand, extras)])
                ys.append(1.0 if cand["key"] in gold else 0.0)
                fold.append(number % folds)
                top.append(fid in best)
        x_, y_, f_, t_ = np.array(xs), np.array(ys), np.array(fold), np.array(top)
        # Features on one scale, so that the L2 penalty weighs them alike.
        x_ = (x_ - x_.mean(axis=0)) / np.where(x_.std(axis=0) > 0, x_.std(axis=0), 1.0)
        chance = np.zeros(len(y_))
        for held in range(folds):
            w = fit(x_[f_ != held], y_[f_ != held])
            chance[f_ == held] = x_[f_ == held] @ w[1:] + w[0]
        out[label] = auc(chance[t_ & (y_ > 0)].tolist(), chance[t_ & (y_ == 0)].tolist()) or 0.0
    return out


def model_scorer(model: Relevance) -> Scorer:
    def score(row: Row) -> dict[str, float]:
        return {fid: model.probability(x) for fid, x in row_features(row).items()}

    return score


def combsum(row: Row, text_chars: int = DEFAULT_TEXT_MATCH_CHARS) -> dict[str, float]:
    """The default order, made by the engine's own pieces over a dumped question: the lists
    fused (graph.search.fusion.combsum, long texts' factors from engine.text_factors), as a
    share of the best, with the subject boost."""
    cands = row["candidates"]
    lists = {
        name: sorted(
            ((f, c["lists"][name][1]) for f, c in cands.items() if name in c["lists"]),
            key=lambda item: -item[1],
        )
        for name in LISTS
    }
    briefs = {
        f: Brief(f, 5.0, 1.0, _EPOCH, None, subject=c.get("subject"), chars=c.get("chars") or 0)
        for f, c in cands.items()
    }
    found = Candidates(lists, briefs, {}, fulltext_exhaustive=False, vector_exact=False)
    fused = fusion.combsum(lists, {}, text_factors(found, text_chars))
    shares = boosted(
        row["question"],
        [briefs[f].subject for f, _ in fused],
        normalise([score for _, score in fused]),
        DEFAULT_SUBJECT_BOOST,
    )
    return {f: share for (f, _), share in zip(fused, shares, strict=True)}


def single(name: str) -> Scorer:
    def score(row: Row) -> dict[str, float]:
        return {
            f: -float(c["lists"][name][0])
            for f, c in row["candidates"].items()
            if name in c["lists"]
        }

    return score


def newer_first(
    row: Row,
    order: list[str],
    scores: dict[str, float],
    relevance: dict[str, float],
    floor: float,
    depth: int = 10,
) -> list[str]:
    """graph/search/newer.py's rule over a dumped question's top `depth`."""
    cands = row["candidates"]
    top = order[:depth]
    items = [
        Timed(f, scores[f], (cands[f].get("valid_from") or "", cands[f].get("turn") or 0))
        for f in top
    ]

    def updated(newer: str, older: str) -> bool:
        b, a = cands[newer], cands[older]
        text = "now" if b.get("changed") else ""
        return updates(
            relevance[newer], relevance[older], b.get("subject"), a.get("subject"), text, floor
        )

    return [m.id for m in reorder(items, updated)] + order[depth:]


def evaluate(
    rows: Sequence[Row],
    order_by: Scorer,
    relevance_of: Scorer | None = None,
    newer: float | None = None,
) -> dict[str, float]:
    """Each measure averaged over questions, and the AUC of the top-10 hits' relevance (the
    order's own scores when no relevance is given)."""
    sums: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = defaultdict(int)
    pos: list[float] = []
    neg: list[float] = []
    for row in rows:
        q = question(row)
        scores = order_by(row)
        relevance = relevance_of(row) if relevance_of else scores
        order = sorted(scores, key=lambda f: -scores[f])
        if newer is not None:
            order = newer_first(row, order, scores, relevance, newer)
        keys = [row["candidates"][f]["key"] for f in order]
        r: Ranked = dedupe(keys, [relevance.get(f, 0.0) for f in order])
        for name, value in measures(q, r).items():
            sums[name] += value
            counts[name] += 1
        for k, s in zip(r.keys[:10], r.scores[:10], strict=True):
            (pos if k in q.gold else neg).append(s)
    out = {name: round(sums[name] / counts[name], 4) for name in sums}
    out["auc"] = auc(pos, neg) or 0.0
    return out


def table(title: str, rows: Sequence[tuple[str, dict[str, float]]], shown: Sequence[str]) -> None:
    print(f"\n{title}\n{'':<26}" + "".join(f"{m:>15}" for m in shown))
    for label, figures in rows:
        print(f"{label:<26}" + "".join(f"{figures.get(m, math.nan):>15.3f}" for m in shown))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "dump",
        type=Path,
        nargs="+",
        help="one dump per database state (a set alone in it, or beside others): each is "
        "measured apart, and the model is fit on all together",
    )
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--discount", type=float, default=DEFAULT_CHUNK_DISCOUNT)
    parser.add_argument("--write", type=Path, default=None, help="write the model fit on both")
    parser.add_argument(
        "--newer", type=float, nargs="*", default=None, help="relevance floors to try (newer first)"
    )
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="only the AUC of models fit and scored on the same set, with more signals",
    )
    args = parser.parse_args(argv)
    dumps = {path.name: read(path, args.discount) for path in args.dump}
    if args.ceiling:
        for dump_name, dumped in dumps.items():
            per_set: dict[str, list[Row]] = defaultdict(list)
            for row in dumped:
                per_set[row["set"]].append(row)
            found = {name: ceiling(rows_) for name, rows_ in sorted(per_set.items())}
            table(
                f"=== {dump_name}: AUC of the top-10 hits, fit on the same set (5 folds)",
                [(label, {name: found[name][label] for name in found}) for label in EXTRAS],
                list(found),
            )
        return 0
    rows = [row for dumped in dumps.values() for row in dumped]
    every_set: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        every_set[row["set"]].append(row)
    names = sorted(every_set)
    models = {}
    for name in names:
        models[name] = Relevance.of(fit(*matrix(every_set[name]), args.l2).tolist())
    x, y = matrix(rows)
    models["both"] = Relevance.of(fit(x, y, args.l2).tolist())
    for dump_name, dumped in dumps.items():
        print(f"\n=== {dump_name}")
        compare(dumped, models, args.newer)
    print("\ncoefficients (bias first):", FEATURES)
    for label, model in models.items():
        print(f"  {label:<12} {[round(w, 3) for w in model.weights]}")
    if args.write:
        about = {
            "trained_by": "bench/ranker.py "
            + " ".join(
                f"DUMP{args.dump.index(Path(a)) + 1}" if Path(a) in args.dump else a
                for a in (sys.argv[1:] if argv is None else argv)
            ),
            "dump_made_by": "bench/recall.py --dump DUMP1 on an empty database; bench/recall.py "
            "--keep TAG --dump DUMP2, each conversation beside the ones before it",
            "questions": {name: len(every_set[name]) for name in names},
            "candidates": len(y),
            "l2": args.l2,
            "chunk_discount": args.discount,
        }
        args.write.write_text(models["both"].to_json(**about) + "\n", encoding="utf-8")
        print(f"written {args.write}")
    return 0


def compare(rows: list[Row], models: dict[str, Relevance], newer: list[float] | None) -> None:
    """The orders, the relevance's AUC and newer-first, over one dump's questions."""
    by_set: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_set[row["set"]].append(row)
    names = sorted(by_set)
    for name in names:
        shown = (*MEASURES.get(name, ()), "auc")
        ordered: list[tuple[str, dict[str, float]]] = [
            (label, evaluate(by_set[name], scorer))
            for label, scorer in (
                ("combsum (default order)", combsum),
                ("combsum, long texts in full", lambda row: combsum(row, 0)),
                *((f"{n} alone", single(n)) for n in LISTS),
            )
        ]
        ordered += [
            (f"model fit on {fit_on}", evaluate(by_set[name], model_scorer(m)))
            for fit_on, m in models.items()
        ]
        table(
            f"{name} ({len(by_set[name])} questions): orders (auc: of their own scores)",
            ordered,
            shown,
        )
        calibrated = [
            (f"fit on {fit_on}", evaluate(by_set[name], combsum, model_scorer(m)))
            for fit_on, m in models.items()
        ]
        table(f"{name}: the default order, auc of the hits' relevance", calibrated, ("auc",))
    floors = [FLOOR] if newer is None else newer
    for name in names:
        shown = (*MEASURES.get(name, ()), "auc")
        tried = [
            (
                "off" if floor is None else f"floor {floor}",
                evaluate(by_set[name], combsum, model_scorer(models["both"]), floor),
            )
            for floor in [None, *floors]
        ]
        table(f"{name}: newer first over the default order (fit on both)", tried, shown)


if __name__ == "__main__":
    raise SystemExit(main())
