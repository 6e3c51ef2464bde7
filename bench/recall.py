"""Retrieval recall on the development sets side by side: LoCoMo, BEAM 100K and BEAM 500K, every
candidate list alone and the default, per question type and overall, with how well scores
separate evidence.

    .venv/bin/python bench/recall.py                       # all three sets: hours on 2 cores
    .venv/bin/python bench/recall.py --limit 1             # one conversation of each: a look
    .venv/bin/python bench/recall.py --keep k              # import once, keep the scopes
    .venv/bin/python bench/recall.py --keep k --only-kept --thread   # then ask only
    .venv/bin/python bench/recall.py --dump bench/results/candidates.jsonl   # for bench/ranker.py

Each conversation is imported into a scope of its own (`factgraph import --fast`, as a user
would load a transcript); every question with evidence is asked of it once through the service
(`Memory.search`, the defaults, top 10, turn window 2), and once more for its candidate lists
(the same Cypher the search runs), from which each list's own ranking is read. Measures (the two
data sets' READMEs):
- hit@10: an evidence turn among the top 10; R@10: the share of evidence turns among them;
  R@10+win: the same counting the turns next to a hit (2 each side, same session); all@10:
  every evidence turn among them; R@5 and session_hit@10 for LoCoMo;
- BEAM's knowledge updates: upd@10, the updated message among the top 10, and newer_first, the
  updated message above the original one (or the original absent), over those questions;
- auc: the ROC AUC of the default's hits' relevance, evidence hits against the others, pooled over
  all questions of a set (a score a caller can threshold separates them without knowing the
  query); and, for a threshold chosen on one set, the shares kept and dropped on the other.
Results go to bench/results/recall.json (and .md, and a plot beside them).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.devsets import Conversation, Question, beam, key, locomo
from graph.bulk.autocommit import delete_scope
from graph.bulk.importer import ImportOptions, run_import
from graph.config import Settings
from graph.memory import Memory
from graph.search import SearchOptions
from graph.search.candidates import fetch
from graph.search.frames import topic
from graph.search.lucene import to_lucene
from graph.search.newer import says_changed
from graph.search.standing import bearing
from graph.search.types import StandingFact
from graph.write.validation import MAX_TEXT_CHARS

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
K = 10
WINDOW = 2
# The question types whose evidence is a standing instruction or preference: their figures also
# count the search's `standing` field (`hit@10+standing`).
STANDING_TYPES = ("instruction_following", "preference_following")
# A thread search (SearchOptions.thread) returns this many hits; measured as R@50 and all@50.
THREAD_K = 50
LISTS = ("fulltext", "vector", "passage")
# The names the results use for each ranking (the issue's: "passages" for the passage list).
RANKINGS = {"hybrid": "hybrid", "fulltext": "fulltext", "vector": "vector", "passage": "passages"}


@dataclass(frozen=True)
class Ranked:
    """One ranking of a question's facts: keys best first (a key once), with scores if any."""

    keys: list[str]
    scores: list[float]


def dedupe(keys: Iterable[str], scores: Iterable[float]) -> Ranked:
    """A message stored in parts ranks where its best part does."""
    out_keys: list[str] = []
    out_scores: list[float] = []
    for k, s in zip(keys, scores, strict=True):
        if k not in out_keys:
            out_keys.append(k)
            out_scores.append(s)
    return Ranked(out_keys, out_scores)


def near(hit: str, other: str) -> bool:
    """Whether `other` is in `hit`'s turn window: same session, at most WINDOW turns away."""
    hs, _, ht = hit.partition(":")
    os_, _, ot = other.partition(":")
    return hs == os_ and abs(int(ht) - int(ot)) <= WINDOW


def with_standing(q: Question, ranked: Ranked, standing: Sequence[StandingFact]) -> float:
    """hit@10 counting the search's standing field too (graph/search/standing.py): an
    instruction or preference the agent is handed beside the hits is found as well."""
    keys = set(ranked.keys[:K]) | {key(s.fact.session_id, s.fact.turn) for s in standing}
    return float(bool(q.gold & keys))


STANDING_FLOORS = (0.0, 0.86, 0.87, 0.88, 0.89, 0.9, 0.91)
STANDING_LIMITS = (3, 5, 10)
# Lifts over the background centroid (graph/search/standing.py DEFAULT_LIFT), at the default
# floor and limit: what a list that stays empty for unrelated queries costs here.
STANDING_LIFTS = (0.01, 0.02, 0.025, 0.03)


def floors(
    memory: Memory,
    scope: str,
    q: Question,
    ranked: Ranked,
    tally: dict[tuple[str, float, int], list[int]],
    lifts: dict[tuple[str, float], list[int]] | None = None,
) -> None:
    """hit@10+standing at other floors and limits of the standing field, for choosing them
    (graph/search/standing.py): the scope's standing statements scored once, cut many ways."""
    vector = list(memory.embedder.embed_query(topic(q.text).strip()))  # as the search embeds
    every = bearing(memory.db, scope, vector, datetime.now(UTC), query=q.text, limit=50, floor=0.0)
    for floor in STANDING_FLOORS:
        for limit in STANDING_LIMITS:
            kept = [s for s in every if s.similarity >= floor][:limit]
            entry = tally.setdefault((q.kind, floor, limit), [0, 0])
            entry[0] += int(with_standing(q, ranked, kept))
            entry[1] += 1
    for lift in STANDING_LIFTS if lifts is not None else ():
        assert lifts is not None
        kept = bearing(
            memory.db,
            scope,
            vector,
            datetime.now(UTC),
            query=q.text,
            lift=lift,
            model=memory.embedder.id,
        )
        entry = lifts.setdefault((q.kind, lift), [0, 0])
        entry[0] += int(with_standing(q, ranked, kept))
        entry[1] += 1


def measures(q: Question, ranked: Ranked) -> dict[str, float]:
    top = ranked.keys[:K]
    found = q.gold & set(top)
    windowed = {g for g in q.gold if any(near(h, g) for h in top)}
    out = {
        "hit@10": float(bool(found)),
        "R@10": len(found) / len(q.gold),
        "R@10+win": len(windowed | found) / len(q.gold),
        "all@10": float(found == q.gold),
        "R@5": len(q.gold & set(ranked.keys[:5])) / len(q.gold),
        "session_hit@10": float(
            bool({h.split(":")[0] for h in top} & {g.split(":")[0] for g in q.gold})
        ),
    }
    if q.updated:
        place = {k: i for i, k in enumerate(top)}
        upd = min((place[k] for k in q.updated if k in place), default=None)
        orig = min((place[k] for k in q.original - q.updated if k in place), default=None)
        out["upd@10"] = float(upd is not None)
        out["newer_first"] = float(upd is not None and (orig is None or upd < orig))
    return out


class Tally:
    """Sums of each measure per ranking and question type; `figures` averages them."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str, str], float] = defaultdict(float)
        self.counts: dict[tuple[str, str, str], int] = defaultdict(int)

    def add(self, ranking: str, kind: str, values: dict[str, float]) -> None:
        for name, value in values.items():
            for where in (kind, ""):
                self.sums[(ranking, where, name)] += value
                self.counts[(ranking, where, name)] += 1

    def value(self, ranking: str, name: str, kind: str = "") -> float | None:
        n = self.counts.get((ranking, kind, name), 0)
        return round(self.sums[(ranking, kind, name)] / n, 4) if n else None

    def figures(self, ranking: str, names: Sequence[str], kinds: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {n: self.value(ranking, n) for n in names}
        out["types"] = {
            kind: {n: v for n in names if (v := self.value(ranking, n, kind)) is not None}
            for kind in kinds
        }
        out["questions"] = self.counts.get((ranking, "", "hit@10"), 0)
        return out


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """ROC AUC: the chance a random evidence hit scores above a random other hit (ties half)."""
    if not positives or not negatives:
        return None
    ordered = sorted([(s, 1) for s in positives] + [(s, 0) for s in negatives])
    rank_sum = 0.0
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][0] == ordered[i][0]:
            j += 1
        mid = (i + j + 1) / 2.0  # average 1-based rank of the tie group
        rank_sum += mid * sum(label for _, label in ordered[i:j])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return round((rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg), 4)


def best_threshold(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """The score cut that maximises kept evidence + dropped others (Youden's J)."""
    cuts = sorted(set(positives) | set(negatives))
    best, best_j = 0.0, -1.0
    for cut in cuts:
        kept = sum(s >= cut for s in positives) / len(positives)
        dropped = sum(s < cut for s in negatives) / len(negatives)
        if kept + dropped - 1.0 > best_j:
            best, best_j = cut, kept + dropped - 1.0
    return best


def kept_dropped(
    threshold: float, positives: Sequence[float], negatives: Sequence[float]
) -> dict[str, float]:
    return {
        "evidence_kept": round(sum(s >= threshold for s in positives) / len(positives), 4),
        "others_dropped": round(sum(s < threshold for s in negatives) / len(negatives), 4),
    }


def load(memory: Memory, scope: str, conversation: Conversation) -> float:
    """Import a conversation's rows as a user would a transcript; seconds taken."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in conversation.rows), encoding="utf-8")
        summary = run_import(
            memory,
            ImportOptions(
                path=path, scope=scope, fast=True, progress=False, restart=True, batch_size=200
            ),
        )
    if summary.rejected:
        print(f"  {conversation.name}: {summary.rejected} rows rejected", file=sys.stderr)
    return time.perf_counter() - started


def candidates_of(memory: Memory, scope: str, q: Question) -> dict[str, Any]:
    """Every candidate of the question with what the lists said of it, for the list rankings
    and for bench/ranker.py: key, time, subject, each list's rank and raw score, its vector
    score as search reads it (`cosine`), and the two it is the best of: its own vector's
    (`own`) and its best chunk's (`window`, None for a text with no chunks); whether its text
    says that something changed (`changed`, graph/search/newer.py)."""
    options = SearchOptions.build(track_access=False)
    # The lists as the search asks them: a framed question by its topic (graph/search/frames.py).
    told = topic(q.text) if options.frames else q.text
    vector = list(memory.embedder.embed_query(told.strip()))
    found = fetch(
        memory.db,
        scope,
        options,
        lucene=to_lucene(told),
        vector=vector,
        now=datetime.now(UTC),
        full=True,
    )
    records = memory.db.read(
        "bench_fact_similarity", {"scope": scope, "ids": list(found.facts), "vector": vector}
    )
    own = {str(r["id"]): float(r["own"]) for r in records}
    windows = {str(r["id"]): r["window"] for r in records}
    out: dict[str, Any] = {}
    for name, items in found.lists.items():
        for rank, (fid, raw) in enumerate(items, start=1):
            fact = found.facts[fid]
            entry = out.setdefault(
                fid,
                {
                    "key": key(fact.session_id, fact.turn),
                    "valid_from": fact.valid_from.isoformat() if fact.valid_from else None,
                    "chars": len(fact.text),
                    "cosine": found.cosines.get(fid),
                    "own": own.get(fid),
                    "window": windows.get(fid),
                    "turn": fact.turn,
                    "subject": fact.subject,
                    "changed": says_changed(fact.text),
                    "matched": list(found.briefs[fid].matched),
                    "lists": {},
                },
            )
            entry["lists"].setdefault(name, [rank, raw])
    return out


def thread_measures(
    memory: Memory, scope: str, q: Question, options: SearchOptions
) -> dict[str, float]:
    """The question asked as a thread: the share of its evidence among the thread's hits
    (R@50), and whether all of it is there (all@50)."""
    threaded = dataclasses.replace(options, thread=True, top_k=THREAD_K)
    result = memory.search(scope, q.text, options=threaded)
    found = q.gold & {key(h.fact.session_id, h.fact.turn) for h in result.hits}
    return {"R@50": len(found) / len(q.gold), "all@50": float(found == q.gold)}


def list_ranking(cands: dict[str, Any], name: str) -> Ranked:
    items = sorted(
        (c for c in cands.values() if name in c["lists"]), key=lambda c: c["lists"][name][0]
    )
    return dedupe((c["key"] for c in items), (c["lists"][name][1] for c in items))


@dataclass
class SetRun:
    """One development set's rankings and hit scores, gathered question by question."""

    name: str
    tally: Tally
    kinds: list[str]
    positives: list[float]
    negatives: list[float]
    questions: int = 0
    load_seconds: float = 0.0
    skipped: list[str] = dataclasses.field(default_factory=list)
    # (type, floor, limit) -> [questions with evidence found counting the standing field, asked]
    standing_floors: dict[tuple[str, float, int], list[int]] = dataclasses.field(
        default_factory=dict
    )
    # (type, lift) -> the same at the default floor and limit, with that lift
    standing_lifts: dict[tuple[str, float], list[int]] = dataclasses.field(default_factory=dict)


def stored(memory: Memory, scope: str) -> int:
    """How many facts a kept scope already holds (a run with --keep left them)."""
    return int(
        memory.db.read(
            "fact_scope_count", {"scope": scope, "statuses": ["active"], "cap": 1_000_000}
        )[0]["count"]
    )


def loaded(memory: Memory, scope: str, conversation: Conversation) -> bool:
    """Whether a kept scope holds the conversation: an import stores a repeated text once and
    may merge a few near-duplicates, so 2% short of its distinct texts counts as whole; an
    import cut short is far further off."""
    distinct = len({row["text"] for row in conversation.rows})
    return stored(memory, scope) >= 0.98 * distinct


def run_set(
    memory: Memory,
    name: str,
    conversations: list[Conversation],
    dump: Callable[[dict[str, Any]], None] | None,
    options: SearchOptions,
    tag: str | None = None,
    thread: bool = False,
    only_kept: bool = False,
) -> SetRun:
    """`tag`: the scopes are named by it and kept afterwards; a scope already holding the
    conversation (an earlier run with the same tag) is asked again without importing it.
    `thread`: each question is also asked as a thread (top 50), measured apart. `only_kept`
    (with a tag): a conversation not kept whole is skipped, not imported."""
    run = SetRun(name, Tally(), [], [], [])
    prefix = tag or uuid.uuid4().hex[:8]
    for conversation in conversations:
        scope = f"recall-{prefix}-{name}-{conversation.name}"
        try:
            seconds = 0.0
            kept = tag is not None and loaded(memory, scope, conversation)
            if only_kept and not kept:
                print(f"{name} {conversation.name}: not kept, skipped", flush=True)
                run.skipped.append(conversation.name)
                continue
            if not kept:
                delete_scope(memory.db, scope)
                seconds = load(memory, scope, conversation)
            run.load_seconds += seconds
            print(
                f"{name} {conversation.name}: {len(conversation.rows)} rows in {seconds:.1f}s, "
                f"{len(conversation.questions)} questions",
                flush=True,
            )
            for q in conversation.questions:
                run.questions += 1
                if q.kind not in run.kinds:
                    run.kinds.append(q.kind)
                result = memory.search(scope, q.text, options=options)
                hits = dedupe(
                    (key(h.fact.session_id, h.fact.turn) for h in result.hits),
                    (h.relevance for h in result.hits),
                )
                values = measures(q, hits)
                if q.kind in STANDING_TYPES:
                    values["hit@10+standing"] = with_standing(q, hits, result.standing)
                    floors(memory, scope, q, hits, run.standing_floors, run.standing_lifts)
                run.tally.add("hybrid", q.kind, values)
                for k, s in zip(hits.keys, hits.scores, strict=True):
                    (run.positives if k in q.gold else run.negatives).append(s)
                if thread:
                    run.tally.add("thread", q.kind, thread_measures(memory, scope, q, options))
                cands = candidates_of(memory, scope, q)
                for list_name in LISTS:
                    ranked = list_ranking(cands, list_name)
                    run.tally.add(RANKINGS[list_name], q.kind, measures(q, ranked))
                if dump is not None:
                    dump(
                        {
                            "set": name,
                            "conversation": conversation.name,
                            "question": q.text,
                            "kind": q.kind,
                            "gold": sorted(q.gold),
                            "updated": sorted(q.updated),
                            "original": sorted(q.original),
                            "hybrid": {"keys": hits.keys, "scores": hits.scores},
                            "candidates": cands,
                        }
                    )
        finally:
            if tag is None:
                delete_scope(memory.db, scope)
    return run


_BEAM_MEASURES = (
    "hit@10",
    "R@10",
    "R@10+win",
    "all@10",
    "upd@10",
    "newer_first",
    "hit@10+standing",
)
MEASURES = {
    "locomo-dev": ("hit@10", "R@10", "R@10+win", "all@10", "R@5", "session_hit@10"),
    "beam-dev": _BEAM_MEASURES,
    "beam-500k-dev": _BEAM_MEASURES,
}
# The sets whose questions include BEAM's knowledge updates.
BEAM_SETS = ("beam-dev", "beam-500k-dev")


def summary(runs: list[SetRun], settings: dict[str, Any]) -> dict[str, Any]:
    sets: dict[str, Any] = {}
    for run in runs:
        names = MEASURES[run.name]
        entry: dict[str, Any] = {
            ranking: run.tally.figures(ranking, names, run.kinds) for ranking in RANKINGS.values()
        }
        if run.tally.counts.get(("thread", "", "R@50")):
            entry["thread"] = run.tally.figures("thread", ("R@50", "all@50"), run.kinds)
        entry["auc"] = auc(run.positives, run.negatives)
        if run.name in BEAM_SETS:
            entry["newer_first"] = run.tally.value("hybrid", "newer_first")
            entry["upd@10"] = run.tally.value("hybrid", "upd@10")
        entry["load_seconds"] = round(run.load_seconds, 1)
        if run.skipped:
            entry["skipped"] = run.skipped
        if run.standing_floors:
            entry["standing_floors"] = {
                f"{kind} floor {floor} top {limit}": round(found / asked, 4)
                for (kind, floor, limit), (found, asked) in sorted(run.standing_floors.items())
            }
        if run.standing_lifts:
            entry["standing_lifts"] = {
                f"{kind} lift {lift}": round(found / asked, 4)
                for (kind, lift), (found, asked) in sorted(run.standing_lifts.items())
            }
        sets[run.name] = entry
    out: dict[str, Any] = {"sets": sets}
    if len(runs) >= 2:
        transfer = {}
        pairs = [(a, b) for a in runs for b in runs if a is not b]
        for fit, other in pairs:
            if fit.positives and fit.negatives and other.positives and other.negatives:
                cut = best_threshold(fit.positives, fit.negatives)
                transfer[f"{fit.name} -> {other.name}"] = {
                    "threshold": round(cut, 4),
                    **kept_dropped(cut, other.positives, other.negatives),
                }
        out["threshold_transfer"] = transfer
    out["settings"] = settings
    return out


def markdown(results: dict[str, Any]) -> str:
    lines = ["# Recall on the development sets", ""]
    lines.append("Made by `" + results["settings"]["command"] + "`.")
    lines.append("")
    for name, entry in results["sets"].items():
        names = MEASURES[name]
        lines += [f"## {name}", ""]
        if entry.get("skipped"):
            lines += ["Not measured (not kept whole): " + ", ".join(entry["skipped"]) + ".", ""]
        lines += ["| ranking | " + " | ".join(names) + " |"]
        lines.append("|---|" + "---|" * len(names))
        for ranking in RANKINGS.values():
            cells = " | ".join(_cell(entry[ranking].get(n)) for n in names)
            lines.append(f"| {ranking} | {cells} |")
        lines += ["", f"Hit-relevance ROC AUC (default): {_cell(entry['auc'])}", ""]
        if "thread" in entry:
            thread = entry["thread"]
            lines.append(
                f"Thread (`thread: true`, top {THREAD_K}): R@50 {_cell(thread['R@50'])}, "
                f"all@50 {_cell(thread['all@50'])}; by type: "
                + ", ".join(
                    f"{kind} {_cell(cells.get('R@50'))}" for kind, cells in thread["types"].items()
                )
            )
            lines.append("")
        lines += ["| type (default) | questions | " + " | ".join(names) + " |"]
        lines.append("|---|---|" + "---|" * len(names))
        for kind, cells in entry["hybrid"]["types"].items():
            n = _count(entry, kind)
            lines.append(
                f"| {kind} | {n} | " + " | ".join(_cell(cells.get(m)) for m in names) + " |"
            )
        lines.append("")
    for direction, figures in results.get("threshold_transfer", {}).items():
        lines.append(
            f"- threshold fit on {direction.split(' -> ')[0]} ({figures['threshold']}), "
            f"on {direction.split(' -> ')[1]}: evidence hits kept {figures['evidence_kept']}, "
            f"other hits dropped {figures['others_dropped']}"
        )
    return "\n".join(lines) + "\n"


def _count(entry: dict[str, Any], kind: str) -> str:
    return str(entry.get("counts", {}).get(kind, ""))


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = ("hit@10", "R@10", "R@10+win")
    fig, axes = plt.subplots(
        1, len(results["sets"]), figsize=(5.5 * len(results["sets"]), 4), sharey=True
    )
    for ax, (name, entry) in zip(
        axes if len(results["sets"]) > 1 else [axes], results["sets"].items(), strict=True
    ):
        width = 0.2
        for i, ranking in enumerate(RANKINGS.values()):
            values = [entry[ranking].get(m) or 0.0 for m in shown]
            xs = [j + (i - 1.5) * width for j in range(len(shown))]
            ax.bar(xs, values, width, label=ranking)
        ax.set_xticks(range(len(shown)), shown)
        ax.set_title(f"{name} (AUC {entry['auc']})")
        ax.set_ylim(0, 1)
    axes_list = axes if len(results["sets"]) > 1 else [axes]
    axes_list[0].legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    shared = ROOT.parent / "shared" / "data"
    parser.add_argument("--locomo", type=Path, default=shared / "locomo" / "locomo-dev.json")
    parser.add_argument("--beam", type=Path, default=shared / "beam" / "100K")
    parser.add_argument("--beam-500k", type=Path, default=shared / "beam" / "500K")
    parser.add_argument("--sets", default="locomo-dev,beam-dev,beam-500k-dev")
    parser.add_argument("--limit", type=int, default=0, help="first N conversations of each")
    parser.add_argument("--out", type=Path, default=RESULTS / "recall.json")
    parser.add_argument("--no-record", action="store_true", help="print, write nothing")
    parser.add_argument("--dump", type=Path, default=None, help="candidates as JSON lines")
    parser.add_argument(
        "--only-kept",
        action="store_true",
        help="with --keep: ask only the conversations already kept whole, import nothing",
    )
    parser.add_argument(
        "--thread", action="store_true", help=f"also ask each question as a thread (top {THREAD_K})"
    )
    parser.add_argument(
        "--keep",
        metavar="TAG",
        default=None,
        help="name the scopes by TAG and keep them; a later run with the same TAG only asks. "
        "Kept, every conversation shares the full-text index with the others, which moves BM25: "
        "figures to compare come from runs without it",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help='a search option on top of the defaults (e.g. fusion=\'{"method":"combsum"}\')',
    )
    args = parser.parse_args(argv)

    extra = {name: json.loads(value) for name, _, value in (o.partition("=") for o in args.option)}
    options = SearchOptions.build(
        top_k=K, prev_turns=WINDOW, next_turns=WINDOW, related_limit=0, track_access=False, **extra
    )
    memory = Memory.connect(Settings.from_env())
    others = int(memory.db.read("bench_fact_total", {})[0]["count"])
    if others and not args.keep:
        # BM25 weighs a word by its rarity in the whole full-text index, every scope's facts
        # together: the figures below are comparable only when a set is alone in the database.
        print(
            f"warning: the database holds {others:,} facts of other scopes; BM25 reads them too,"
            " so the figures are not comparable with a run on an empty database",
            file=sys.stderr,
        )
    dump_file = args.dump.open("w", encoding="utf-8") if args.dump else None

    def dump(row: dict[str, Any]) -> None:
        assert dump_file is not None
        dump_file.write(json.dumps(row) + "\n")

    runs = []
    try:
        for name in args.sets.split(","):
            if name == "locomo-dev":
                conversations = locomo(args.locomo, args.limit)
            elif name == "beam-dev":
                conversations = beam(args.beam, args.limit, max_chars=MAX_TEXT_CHARS)
            elif name == "beam-500k-dev":
                conversations = beam(args.beam_500k, args.limit, max_chars=MAX_TEXT_CHARS)
            else:
                raise SystemExit(f"unknown set {name!r}: " + ", ".join(MEASURES))
            runs.append(
                run_set(
                    memory,
                    name,
                    conversations,
                    dump if dump_file else None,
                    options,
                    args.keep,
                    args.thread,
                    args.only_kept,
                )
            )
    finally:
        memory.close()
        if dump_file is not None:
            dump_file.close()
    settings = {
        "command": " ".join(["bench/recall.py", *(sys.argv[1:] if argv is None else argv)]),
        "embedder": memory.embedder.id,
        "max_text_chars": MAX_TEXT_CHARS,
        "options": extra,
    }
    results = summary(runs, settings)
    for run in runs:
        results["sets"][run.name]["counts"] = {
            kind: run.tally.counts.get(("hybrid", kind, "hit@10"), 0) for kind in run.kinds
        }
    text = markdown(results)
    print(text)
    if not args.no_record:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        args.out.with_suffix(".md").write_text(text, encoding="utf-8")
        plot(results, args.out.with_suffix(".png"))
        print(f"recorded in {args.out} (.md, .png)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
