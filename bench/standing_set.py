"""Train and score the standing-statement classifier on a labelled set written for it.

    .venv/bin/python bench/standing_set.py                  # scores, held-out part
    .venv/bin/python bench/standing_set.py --write          # and ship the weights

bench/data/standing_set.jsonl holds sentences written by hand for this purpose (no benchmark's
text): standing instructions, standing preferences, and hard negatives (past events, other
people's tastes, questions, one-off requests, "I always forget ...", the assistant's advice),
each with a fixed `split` (train / held-out, by a hash of the text). The classifier is a
multinomial logistic regression over the vector the write path already computes for a fact
(e5-small-v2, "passage: " and the contextual line before the text, graph/write/indexing.py), so
each sentence is embedded as it would be stored: bare, behind a contextual line, and with a
transcript's "user:" label. Fitted with numpy on the train part; the held-out part is scored
for the patterns alone, the classifier alone and both together (what `recognise` does), and
the figures go to bench/results/standing_set.json. tests/test_standing_set.py keeps the
held-out score as a floor.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import graph.reading.standing as standing
from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.reading.standing import Classifier, Standing

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data" / "standing_set.jsonl"
RESULTS = ROOT / "bench" / "results" / "standing_set.json"
# The forms a sentence is stored in, as (the fact's text, the text its vector is made of): bare
# (contextual indexing off), behind the contextual line of a fact with and without a subject and
# session, and as a transcript's turn.
FORMS: tuple[Callable[[str], tuple[str, str]], ...] = (
    lambda t: (t, t),
    lambda t: (t, f"[on 07 December 2026] {t}"),
    lambda t: (t, f"[about user; session 12; on 03 March 2025] {t}"),
    lambda t: (f"user: {t}", f"[about Dana; on 21 June 2024] user: {t}"),
)
VECTOR_L2 = 100.0  # measured: 10 and 1 let the vector model fit the train part's wording
CUE_L2 = 0.1
THRESHOLD = 0.7
FOLDS = 5
KINDS = (Standing.INSTRUCTION, Standing.PREFERENCE)


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def logistic(x: np.ndarray, t: np.ndarray, l2: float, iters: int = 15) -> np.ndarray:
    """Bias and weights of an L2-regularised logistic regression (the bias not shrunk), by
    Newton's method."""
    n, d = x.shape
    x1 = np.hstack([np.ones((n, 1)), x])
    w = np.zeros(d + 1)
    penalty = l2 * np.eye(d + 1)
    penalty[0, 0] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(x1 @ w)))
        gradient = x1.T @ (p - t) + penalty @ w
        hessian = (x1 * (p * (1.0 - p))[:, None]).T @ x1 + penalty
        w -= np.linalg.solve(hessian, gradient)
    return w


def vector_model(vectors: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The vector stage for one kind, on standardised dimensions, folded back so that it reads
    the raw vector: bias, one weight per dimension."""
    flat = vectors.reshape(-1, vectors.shape[-1])
    mu, sd = flat.mean(axis=0), flat.std(axis=0)
    w = logistic((flat - mu) / sd, np.repeat(t, vectors.shape[1]), VECTOR_L2)
    folded = w[1:] / sd
    return np.concatenate([[w[0] - float(folded @ mu)], folded])


def fit(
    model: str, spoken: list[list[str]], vectors: np.ndarray, kinds: list[str | None]
) -> Classifier:
    """Both stages on the train part: the cue stage learns from the vector stage's log-odds
    out of fold, as it will meet them on texts the vector stage never saw."""
    n, forms = vectors.shape[:2]
    targets = [np.array([k == kind.value for k in kinds], dtype=float) for kind in KINDS]
    fold = np.arange(n) % FOLDS
    odds = np.zeros((n, forms, len(KINDS)))
    for j, t in enumerate(targets):
        for f in range(FOLDS):
            w = vector_model(vectors[fold != f], t[fold != f])
            odds[fold == f, :, j] = w[0] + vectors[fold == f] @ w[1:]
    x = np.array([cues_of(spoken[i][f]) + list(odds[i, f]) for i in range(n) for f in range(forms)])
    return Classifier(
        model=model,
        vector_weights=tuple(tuple(map(float, vector_model(vectors, t))) for t in targets),
        cue_weights=tuple(
            tuple(map(float, logistic(x, np.repeat(t, forms), CUE_L2))) for t in targets
        ),
        threshold=THRESHOLD,
    )


def cues_of(text: str) -> list[float]:
    return standing.cues(standing._spoken(text, None) or "")


def scores(truth: Sequence[str | None], said: Sequence[str | None]) -> dict[str, Any]:
    """Precision and recall per kind, and how often a negative was called either kind."""
    out: dict[str, Any] = {}
    for kind in (Standing.INSTRUCTION.value, Standing.PREFERENCE.value):
        tp = sum(1 for t, s in zip(truth, said, strict=True) if t == kind and s == kind)
        called = sum(1 for s in said if s == kind)
        real = sum(1 for t in truth if t == kind)
        out[kind] = {
            "precision": round(tp / called, 4) if called else None,
            "recall": round(tp / real, 4) if real else None,
            "n": real,
        }
    negatives = [s for t, s in zip(truth, said, strict=True) if t is None]
    out["negatives_called_standing"] = round(
        sum(1 for s in negatives if s is not None) / max(1, len(negatives)), 4
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help="ship the weights")
    parser.add_argument("--show", action="store_true", help="print the held-out mistakes")
    parser.add_argument(
        "--vectors", type=Path, help="a .npy of the set's vectors: read if it exists, else made"
    )
    args = parser.parse_args(argv)
    rows = load()
    embedder = Embedder(Settings.from_env())
    stored = [[form(r["text"]) for form in FORMS] for r in rows]
    if args.vectors is not None and args.vectors.exists():
        vectors = np.load(args.vectors)
    else:
        flat = embedder.embed([index for forms in stored for _, index in forms])
        vectors = np.array(flat).reshape(len(rows), len(FORMS), -1)
        if args.vectors is not None:
            np.save(args.vectors, vectors)
    train = [i for i, r in enumerate(rows) if r["split"] == "train"]
    held = [i for i, r in enumerate(rows) if r["split"] == "held-out"]
    classifier = fit(
        embedder.id,
        [[text for text, _ in stored[i]] for i in train],
        vectors[train],
        [rows[i]["kind"] for i in train],
    )
    report: dict[str, Any] = {
        "made_by": "bench/standing_set.py",
        "model": embedder.id,
        "sentences": {"train": len(train), "held-out": len(held)},
        "held_out": {},
    }
    truth = [rows[i]["kind"] for i in held]
    for n, form in enumerate(FORMS):
        texts = [stored[i][n][0] for i in held]
        patterns = [_value(standing.patterns(t)) for t in texts]
        both = [
            _value(
                standing.recognise(
                    t, vector=list(vectors[i, n]), embedder=embedder.id, model=classifier
                )
            )
            for t, i in zip(texts, held, strict=True)
        ]
        report["held_out"][f"form {n}: {form('...')[1]}"] = {
            "patterns": scores(truth, patterns),
            "recognise": scores(truth, both),
        }
        if args.show and n == 1:
            for i, s in zip(held, both, strict=True):
                if rows[i]["kind"] != s:
                    print(f"  {rows[i]['kind']!s:12} said {s!s:12} {rows[i]['text']}")
    text = json.dumps(report, indent=1)
    print(text)
    if args.write:
        standing.MODEL_FILE.write_text(
            classifier.to_json(trained_by="bench/standing_set.py --write", sentences=len(train))
            + "\n",
            encoding="utf-8",
        )
        RESULTS.write_text(text + "\n", encoding="utf-8")
    return 0


def _value(kind: Standing | None) -> str | None:
    return kind.value if kind is not None else None


if __name__ == "__main__":
    sys.exit(main())
