""" "Nothing here": how well a search's `answerable` signal tells questions the scope answers from
questions it does not, on the development sets' unanswerable questions against the answerable
ones of the same conversations.

    .venv/bin/python bench/answerable.py collect --dump DUMP.jsonl          # import, ask, dump
    .venv/bin/python bench/answerable.py collect --dump DUMP.jsonl --sets beam-500k-dev --append
    .venv/bin/python bench/answerable.py fit DUMP.jsonl                       # leave-chats-out
    .venv/bin/python bench/answerable.py fit DUMP.jsonl --write graph/search/answerable.json
    .venv/bin/python bench/answerable.py fit DUMP.jsonl --held-out DUMP500K.jsonl   # never fit on

The unanswerable questions: BEAM's `abstention` questions (their answer is in no message) and
LoCoMo's adversarial ones (category 5: a detail of one speaker asked of the other, or never said).
The answerable ones: every question with evidence of the same conversations (bench/devsets.py).

`collect` imports each conversation into a scope of its own (`import --fast`, as bench/recall.py
does), asks every question through `Memory.search` (the defaults, top 10), and writes one JSON
line per question: what the search's ranking had at hand (every candidate list with its raw
scores, each candidate's subject, length, matched query stems and vector score: the `Candidates`
the engine ranked) and the hits it returned with their relevance, with whether an evidence turn
is among them (hit@10). The dump holds the benchmarks' text: keep it out of the repository.

`fit` reads dumps, computes each question's features with the same function the search runs
(graph/search/answerable.py `features`), and fits the logistic model leaving chats out: every
conversation's questions are scored by a model fit on the other conversations (of all sets),
so no figure is fitted on the questions it reports. It writes the whole curve (threshold against
the share of unanswerable questions answered "nothing" and the share of the answerable
questions' hit@10 kept), per set and pooled, to bench/results/answerable.json; `--write` fits
the model on everything and commits its weights (graph/search/answerable.json).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
K = 10
SETS = ("locomo-dev", "beam-dev", "beam-500k-dev")
THRESHOLDS = tuple(round(0.01 * i, 2) for i in range(1, 100))
# The default threshold is the highest at which every set keeps this share of its hit@10.
KEEP = 0.95


@dataclass(frozen=True)
class Asked:
    """A question to ask of a conversation: `gold` empty for an unanswerable one."""

    text: str
    kind: str
    gold: frozenset[str]

    @property
    def answerable(self) -> bool:
        return bool(self.gold)


def unanswerable(name: str, folder: Path, conversation: str) -> list[Asked]:
    """The conversation's unanswerable questions: BEAM's abstention, LoCoMo's category 5."""
    if name == "locomo-dev":
        samples = json.loads(folder.read_text(encoding="utf-8"))
        sample = next(s for s in samples if str(s["sample_id"]) == conversation)
        return [
            Asked(str(qa["question"]), "adversarial", frozenset())
            for qa in sample["qa"]
            if qa.get("category") == 5
        ]
    chat = folder / conversation.removeprefix("beam-")
    probing = json.loads((chat / "probing_questions.json").read_text(encoding="utf-8"))
    return [Asked(str(q["question"]), "abstention", frozenset()) for q in probing["abstention"]]


def collect(args: argparse.Namespace) -> int:
    from bench.devsets import beam, key, locomo
    from bench.recall import load
    from graph.bulk.autocommit import delete_scope
    from graph.config import Settings
    from graph.memory import Memory
    from graph.search import SearchOptions, engine
    from graph.write.validation import MAX_TEXT_CHARS

    options = SearchOptions.build(top_k=K, related_limit=0, track_access=False)
    memory = Memory.connect(Settings.from_env())
    captured: list[Any] = []
    ordering = engine.order

    def capturing(query: str, found: Any, *rest: Any, **kw: Any) -> Any:
        """The candidates the engine ranked, kept for the dump (the search itself unchanged)."""
        captured.append((query, found))
        return ordering(query, found, *rest, **kw)

    engine.order = capturing
    mode = "a" if args.append else "w"
    out = args.dump.open(mode, encoding="utf-8")
    try:
        for name in args.sets.split(","):
            if name == "locomo-dev":
                source = args.locomo
                conversations = locomo(source, args.limit)
            else:
                source = args.beam if name == "beam-dev" else args.beam_500k
                conversations = beam(source, args.limit, max_chars=MAX_TEXT_CHARS)
            for conversation in conversations:
                scope = f"answerable-{uuid.uuid4().hex[:8]}-{conversation.name}"
                try:
                    seconds = load(memory, scope, conversation)
                    asked = [Asked(q.text, q.kind, q.gold) for q in conversation.questions]
                    asked += unanswerable(name, source, conversation.name)
                    print(
                        f"{name} {conversation.name}: {len(conversation.rows)} rows in "
                        f"{seconds:.0f}s, {len(asked)} questions",
                        flush=True,
                    )
                    for q in asked:
                        captured.clear()
                        result = memory.search(scope, q.text, options=options)
                        told, found = captured[-1]
                        keys = [key(h.fact.session_id, h.fact.turn) for h in result.hits]
                        row = {
                            "set": name,
                            "conversation": conversation.name,
                            "question": q.text,
                            "told": told,
                            "kind": q.kind,
                            "answerable": q.answerable,
                            "hit": bool(q.gold & set(keys)),
                            "hits": [[h.fact.id, h.relevance] for h in result.hits],
                            "answerability": getattr(result, "answerability", None),
                            "found": dumped(found),
                        }
                        out.write(json.dumps(row) + "\n")
                    out.flush()
                finally:
                    delete_scope(memory.db, scope)
    finally:
        engine.order = ordering
        out.close()
        memory.close()
    return 0


def dumped(found: Any) -> dict[str, Any]:
    """What the answerable features read of the candidates, as JSON."""
    return {
        "lists": {name: [[fid, raw] for fid, raw in items] for name, items in found.lists.items()},
        "briefs": {
            fid: {"subject": b.subject, "chars": b.chars, "matched": list(b.matched)}
            for fid, b in found.briefs.items()
        },
        "cosines": found.cosines,
    }


def candidates(raw: dict[str, Any]) -> Any:
    """A dump's candidates back as the engine's `Candidates`."""
    from graph.search.candidates import Brief, Candidates

    epoch = datetime(2024, 1, 1, tzinfo=UTC)
    return Candidates(
        lists={n: [(fid, float(s)) for fid, s in items] for n, items in raw["lists"].items()},
        briefs={
            fid: Brief(
                id=fid,
                importance=5.0,
                strength=1.0,
                recorded_at=epoch,
                last_accessed_at=None,
                subject=b["subject"],
                chars=int(b["chars"]),
                matched=tuple(b["matched"]),
            )
            for fid, b in raw["briefs"].items()
        },
        facts={},
        fulltext_exhaustive=False,
        vector_exact=False,
        cosines={fid: float(c) for fid, c in raw["cosines"].items()},
    )


def rows(paths: Sequence[Path]) -> Iterator[dict[str, Any]]:
    for path in paths:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


def featured(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Each dumped question with its features, as the search computes them."""
    from graph.search.answerable import features

    out = []
    for row in rows(paths):
        x = features(row["told"], candidates(row["found"]), [(i, r) for i, r in row["hits"]])
        out.append(
            {
                "set": row["set"],
                "conversation": row["conversation"],
                "kind": row["kind"],
                "answerable": row["answerable"],
                "hit": row["hit"],
                "x": x,
            }
        )
    return out


def fit(xs: list[list[float]], ys: list[int], l2: float, weights: list[float]) -> list[float]:
    """L2-regularised logistic regression (bias unpenalised), each weight held to the sign its
    feature must have (graph/search/answerable.py SIGNS: a better match never lowers the
    answerability), by projected gradient descent; `weights` weigh each example (the sets
    balanced so LoCoMo's many questions do not decide alone).

    Unconstrained, the model learned each set's quirks with opposite signs: LoCoMo's
    adversarial questions are made from the conversation's own words, so their best hit's
    relevance is high and few of their words are missing, and the fit gave relevance a negative
    weight and missing words a positive one; in a scope of eight facts it then found a question
    about something never said as answerable as one about something said."""
    import numpy as np

    from graph.search.answerable import SIGNS

    x = np.array([[1.0, *row] for row in xs])
    y = np.array(ys, dtype=float)
    w = np.array(weights, dtype=float)
    mean = x[:, 1:].mean(axis=0)
    std = x[:, 1:].std(axis=0)
    std[std == 0] = 1.0
    z = x.copy()
    z[:, 1:] = (x[:, 1:] - mean) / std
    beta = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[0] = 0.0
    sign = np.array([0.0, *SIGNS])
    # A step of 1 / L, L bounding the loss's curvature: every step lowers the loss.
    rate = 1.0 / (0.25 * np.linalg.eigvalsh((z * w[:, None]).T @ z).max() + l2)
    for _ in range(20_000):
        p = 1.0 / (1.0 + np.exp(-(z @ beta)))
        grad = z.T @ (w * (p - y)) + penalty * beta
        moved = beta - rate * grad
        moved = np.where(sign * moved < 0, 0.0, moved)  # back onto the allowed signs
        done = np.abs(moved - beta).max() < 1e-9
        beta = moved
        if done:
            break
    # Back to the raw features' scale: what graph/search/answerable.py multiplies.
    coef = beta[1:] / std
    bias = beta[0] - float((coef * mean).sum())
    return [float(bias), *(float(c) for c in coef)]


def sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v))


def score(coef: Sequence[float], x: Sequence[float]) -> float:
    return sigmoid(coef[0] + sum(c * v for c, v in zip(coef[1:], x, strict=True)))


def balance(items: list[dict[str, Any]]) -> list[float]:
    """Each set weighs the same, and within a set the answerable and unanswerable questions do."""
    counts: dict[tuple[str, bool], int] = defaultdict(int)
    for item in items:
        counts[(item["set"], item["answerable"])] += 1
    sets = {s for s, _ in counts}
    return [
        len(items) / (2 * len(sets) * counts[(item["set"], item["answerable"])]) for item in items
    ]


def trained_on(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the model learns from: the unanswerable questions against the answerable ones the
    search found evidence for (hit@10). An answerable question whose evidence the search missed
    costs no hit@10 when it answers "nothing", and its hits look like an unanswerable one's."""
    return [i for i in items if not i["answerable"] or i["hit"]]


def cross_validated(items: list[dict[str, Any]], l2: float) -> list[float]:
    """Each question's answerability from a model fit without its conversation."""
    out = [0.0] * len(items)
    for chat in sorted({i["conversation"] for i in items}):
        train = [i for i in trained_on(items) if i["conversation"] != chat]
        coef = fit(
            [i["x"] for i in train], [int(i["answerable"]) for i in train], l2, balance(train)
        )
        for n, item in enumerate(items):
            if item["conversation"] == chat:
                out[n] = score(coef, item["x"])
    return out


def curve(
    items: list[dict[str, Any]], probs: list[float], thresholds: Sequence[float] = THRESHOLDS
) -> list[dict[str, float]]:
    """At each threshold: unanswerable questions answered "nothing" (caught), the answerable
    questions' hit@10 kept (of those that had a hit, the share still answered), and the share
    of all answerable questions answered "nothing"."""
    out = []
    for t in thresholds:
        neg = [p for i, p in zip(items, probs, strict=True) if not i["answerable"]]
        hit = [p for i, p in zip(items, probs, strict=True) if i["answerable"] and i["hit"]]
        pos = [p for i, p in zip(items, probs, strict=True) if i["answerable"]]
        out.append(
            {
                "threshold": t,
                "caught": _share(neg, lambda p, t=t: p < t),
                "hit@10_kept": _share(hit, lambda p, t=t: p >= t),
                "answerable_refused": _share(pos, lambda p, t=t: p < t),
            }
        )
    return out


def _share(values: list[float], test: Any) -> float:
    return round(sum(1 for v in values if test(v)) / len(values), 4) if values else float("nan")


def threshold(
    items: list[dict[str, Any]], probs: list[float], groups: dict[str, list[int]]
) -> float:
    """The highest threshold at which every set keeps KEEP of its hit@10."""
    best = THRESHOLDS[0]
    for t in THRESHOLDS:
        kept = [
            curve([items[n] for n in idx], [probs[n] for n in idx], (t,))[0]["hit@10_kept"]
            for name, idx in groups.items()
            if name != "all"
        ]
        if all(k >= KEEP for k in kept):
            best = t
    return best


def auc(items: list[dict[str, Any]], probs: list[float]) -> float:
    pos = [p for i, p in zip(items, probs, strict=True) if i["answerable"]]
    neg = [p for i, p in zip(items, probs, strict=True) if not i["answerable"]]
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return round(wins / (len(pos) * len(neg)), 4)


def report(args: argparse.Namespace) -> int:
    from graph.search.answerable import FEATURES

    items = featured(args.dumps)
    probs = cross_validated(items, args.l2)
    sets = sorted({i["set"] for i in items}, key=SETS.index)
    groups = {**{s: [n for n, i in enumerate(items) if i["set"] == s] for s in sets}}
    groups["all"] = list(range(len(items)))
    chosen = args.threshold or threshold(items, probs, groups)
    result: dict[str, Any] = {
        "features": list(FEATURES),
        "default_threshold": chosen,
        "chosen_as": (
            f"the highest at which every set keeps {KEEP:.0%} of its hit@10, cross-validated"
            if not args.threshold
            else "given"
        ),
        "l2": args.l2,
        "sets": {},
    }
    for name, idx in groups.items():
        sub = [items[n] for n in idx]
        p = [probs[n] for n in idx]
        answerable = [i for i in sub if i["answerable"]]
        entry = {
            "conversations": len({i["conversation"] for i in sub}),
            "answerable": len(answerable),
            "unanswerable": len(sub) - len(answerable),
            "hit@10": round(sum(i["hit"] for i in answerable) / max(1, len(answerable)), 4),
            "auc": auc(sub, p),
            "curve": curve(sub, p),
        }
        # The documented way before: `minScore`, "nothing" when no hit's relevance reaches it.
        best = [i["x"][FEATURES.index("top_relevance")] for i in sub]
        entry["min_score_auc"] = auc(sub, best)
        entry["min_score_curve"] = curve(sub, best)
        at = next(c for c in entry["curve"] if c["threshold"] == chosen)
        entry["at_default"] = at
        result["sets"][name] = entry
        print(
            f"{name}: {entry['answerable']} answerable (hit@10 {entry['hit@10']}), "
            f"{entry['unanswerable']} unanswerable, AUC {entry['auc']} "
            f"(minScore: {entry['min_score_auc']})"
        )
        for c in entry["curve"]:
            mark = " <- default" if c["threshold"] == chosen else ""
            if c["threshold"] * 100 % 5 and not mark:
                continue  # every point is in the results; the print shows every fifth
            print(
                f"  {c['threshold']:.2f}: caught {c['caught']:.3f}  hit@10 kept "
                f"{c['hit@10_kept']:.3f}  answerable refused {c['answerable_refused']:.3f}{mark}"
            )
    every = trained_on(items)
    coef = fit(
        [i["x"] for i in every], [int(i["answerable"]) for i in every], args.l2, balance(every)
    )
    result["coefficients_all"] = coef
    if args.held_out:
        # Conversations no fit saw, scored by the model fit on every question above.
        kept = featured(args.held_out)
        scored = [score(coef, i["x"]) for i in kept]
        answerable = [i for i in kept if i["answerable"]]
        result["held_out"] = {
            "sets": sorted({i["set"] for i in kept}),
            "conversations": sorted({i["conversation"] for i in kept}),
            "answerable": len(answerable),
            "unanswerable": len(kept) - len(answerable),
            "hit@10": round(sum(i["hit"] for i in answerable) / max(1, len(answerable)), 4),
            "at_default": curve(kept, scored, (chosen,))[0],
            "unanswerable_answerability": [
                round(p, 4) for i, p in zip(kept, scored, strict=True) if not i["answerable"]
            ],
        }
        print("held out:", json.dumps(result["held_out"]))
    result["command"] = " ".join(["bench/answerable.py", *sys.argv[1:]])
    if args.write:
        questions: dict[str, int] = defaultdict(int)
        for i in items:
            questions[i["set"]] += 1
        args.write.write_text(
            json.dumps(
                {
                    "features": list(FEATURES),
                    "coefficients": coef,
                    "threshold": chosen,
                    "trained_by": result["command"],
                    "questions": dict(questions),
                    "l2": args.l2,
                },
                indent=1,
            )
            + "\n",
            encoding="utf-8",
        )
        print(f"model written to {args.write}")
    if not args.no_record:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"recorded in {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)
    shared = ROOT.parent / "shared" / "data"
    c = sub.add_parser("collect", help="import the sets, ask every question, dump")
    c.add_argument("--dump", type=Path, required=True)
    c.add_argument("--append", action="store_true")
    c.add_argument("--sets", default="locomo-dev,beam-dev")
    c.add_argument("--limit", type=int, default=0, help="first N conversations of each")
    c.add_argument("--locomo", type=Path, default=shared / "locomo" / "locomo-dev.json")
    c.add_argument("--beam", type=Path, default=shared / "beam" / "100K")
    c.add_argument("--beam-500k", type=Path, default=shared / "beam" / "500K")
    f = sub.add_parser("fit", help="features, leave-chats-out curve, the model")
    f.add_argument("dumps", type=Path, nargs="+")
    f.add_argument("--l2", type=float, default=1.0)
    f.add_argument(
        "--threshold", type=float, default=None, help=f"the default (else: keeps {KEEP:.0%})"
    )
    f.add_argument("--out", type=Path, default=RESULTS / "answerable.json")
    f.add_argument("--no-record", action="store_true")
    f.add_argument(
        "--held-out", type=Path, nargs="*", default=[], help="dumps scored, never fit on"
    )
    f.add_argument("--write", type=Path, default=None, help="the model fit on every question")
    args = parser.parse_args(argv)
    return collect(args) if args.command == "collect" else report(args)


if __name__ == "__main__":
    raise SystemExit(main())
