"""Turn-level retrieval recall of factgraph's search on a LoCoMo file, and search latency.

    .venv/bin/python bench/locomo.py ../shared/data/locomo/locomo-dev.json
    .venv/bin/python bench/locomo.py DATA.json --limit 1 --questions 50   # a quick look
    .venv/bin/python bench/locomo.py DATA.json --rrf-k 60 --no-passages --subject-boost 0
    .venv/bin/python bench/locomo.py DATA.json --record bench/results/locomo-dev.json --as-defaults

Each conversation's turns are stored as facts in their own scope (text "Speaker: text",
session id, turn number, speaker as subject, the session's date as valid_from) with the fast
bulk importer, then every question of categories 1-4 is asked of that scope. Recall@k is
|evidence turns among the top k hits| / |evidence turns|, averaged over questions; "+window"
also counts the turns the search returned in `related` (prev/next turns, 2 each by default);
hit@10 counts a question found when at least one of its evidence turns is in the top 10, and
session_hit@10 when one of its evidence sessions is among the sessions of the top 10 hits.
Full-text only, vector only and hybrid are measured in one run, with access tracking off so
that earlier questions do not change later rankings. The scopes are deleted at the end.

Every search knob has a flag (fusion method, RRF k, list weights, passages, subject boost,
candidates per list); unset flags leave the service's defaults. The embedding model is the
service's (FACTGRAPH_MODEL, FACTGRAPH_MODEL_PATH). `--record` writes the hybrid figures into a
results JSON as the defaults or as a labelled ablation row, with the command that made them,
and renders the JSON as Markdown beside it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shlex
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph.bulk.autocommit import delete_scope
from graph.bulk.importer import ImportOptions, run_import
from graph.config import ConsolidationSettings, Settings
from graph.consolidation import Consolidator
from graph.memory import Memory
from graph.search import Mode, SearchOptions

CATEGORIES = (1, 2, 3, 4)
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10)
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def parse_date(raw: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023" as an aware datetime."""
    text = " ".join(raw.replace(",", ", ").split()).replace(" ,", ",")
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unrecognised LoCoMo date {raw!r}")


def evidence_turns(raw: list[str]) -> set[str]:
    """Evidence ids normalised to "D<session>:<turn>"; malformed parts that name no turn drop."""
    out: set[str] = set()
    for item in raw:
        for part in re.split(r"[;\s]+", str(item)):
            match = _EVIDENCE.fullmatch(part.strip())
            if match:
                out.add(f"D{int(match.group(1))}:{int(match.group(2))}")
    return out


def graded_questions(
    sample: dict[str, Any], limit: int
) -> Iterator[tuple[dict[str, Any], set[str]]]:
    """The sample's questions of the graded categories (the first `limit`, 0 for all), each with
    its evidence turns; a question whose evidence names no turn cannot be scored and is left out."""
    questions = [q for q in sample["qa"] if q.get("category") in CATEGORIES]
    if limit:
        questions = questions[:limit]
    for qa in questions:
        gold = evidence_turns(qa.get("evidence") or [])
        if gold:
            yield qa, gold


def turn_rows(sample: dict[str, Any], captions: bool) -> Iterator[dict[str, Any]]:
    conv = sample["conversation"]
    sessions = sorted(
        int(m.group(1))
        for key in conv
        if (m := re.fullmatch(r"session_(\d+)", key)) and isinstance(conv[key], list)
    )
    for number in sessions:
        when = parse_date(conv[f"session_{number}_date_time"])
        for turn in conv[f"session_{number}"]:
            match = _EVIDENCE.fullmatch(turn["dia_id"])
            if not match:
                continue
            text = f"{turn['speaker']}: {turn['text']}"
            if captions and turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            yield {
                "text": text,
                "subject": turn["speaker"],
                "session_id": str(int(match.group(1))),
                "turn": int(match.group(2)),
                "valid_from": when.isoformat(),
                "metadata": {"dia_id": turn["dia_id"]},
            }


def load(memory: Memory, scope: str, sample: dict[str, Any], captions: bool) -> int:
    rows = list(turn_rows(sample, captions))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{sample['sample_id']}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        summary = run_import(
            memory,
            ImportOptions(
                path=path, scope=scope, fast=True, progress=False, restart=True, batch_size=500
            ),
        )
    if summary.rejected:
        print(f"  {summary.rejected} rows rejected", file=sys.stderr)
    print(f"  import timings (s): {summary.timings}", file=sys.stderr)
    return len(rows)


def consolidate(memory: Memory, scope: str, enrichers: str) -> None:
    """The consolidator over one conversation's scope, with only the named enrichers."""
    names = {e.strip() for e in enrichers.split(",") if e.strip() and e.strip() != "none"}
    unknown = names - {"time", "mentions"}
    if unknown:
        raise SystemExit(f"unknown enrichers: {', '.join(sorted(unknown))}")
    settings = ConsolidationSettings(
        time="time" in names, mentions="mentions" in names, expiry="off", batch_size=200
    )
    summary = Consolidator(memory, settings).run(scope)
    print(f"  consolidated {summary.facts} facts in {summary.seconds:.1f}s ({sorted(names)})")


def dia(fact: Any) -> str:
    return f"D{fact.session_id}:{fact.turn}"


MODEL_ENV = ("FACTGRAPH_MODEL", "FACTGRAPH_MODEL_PATH")
MEASURES = (
    "R@5",
    "R@10",
    "R@5+window",
    "R@10+window",
    "hit@10",
    "hit@10+window",
    "session_hit@10",
)


class Tally:
    """Sums of every measure per (mode, category); `recall` averages them over questions."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str, int], float] = defaultdict(float)
        self.counts: dict[tuple[str, int], int] = defaultdict(int)

    def add(
        self, mode: str, category: int, gold: set[str], hits: list[str], window: list[str]
    ) -> None:
        # window: the related turns of the hits, as "rank|D<s>:<t>" in the order search gave them
        self.counts[(mode, category)] += 1
        found: dict[str, float] = {}
        for k in KS:
            top = set(hits[:k])
            near = top | set(window_for(k, hits, window))
            found[f"R@{k}"] = len(gold & top) / len(gold)
            found[f"R@{k}+window"] = len(gold & near) / len(gold)
            if k == 10:
                found["hit@10"] = float(bool(gold & top))
                found["hit@10+window"] = float(bool(gold & near))
                sessions = {h.split(":", 1)[0] for h in hits[:k]}
                found["session_hit@10"] = float(bool(sessions & {g.split(":", 1)[0] for g in gold}))
        for measure, value in found.items():
            self.sums[(mode, measure, category)] += value

    def recall(self, mode: str, measure: str, category: int | None) -> float:
        cats = CATEGORIES if category is None else (category,)
        total = sum(self.counts[(mode, c)] for c in cats)
        if not total:
            return float("nan")
        return sum(self.sums[(mode, measure, c)] for c in cats) / total

    def figures(self, mode: str) -> dict[str, Any]:
        """Overall and per-category figures of one mode, rounded, for the JSON record."""
        out: dict[str, Any] = {m: round(self.recall(mode, m, None), 4) for m in MEASURES}
        out["categories"] = {
            CATEGORY_NAMES[c]: {m: round(self.recall(mode, m, c), 4) for m in MEASURES}
            for c in CATEGORIES
        }
        out["questions"] = sum(self.counts[(mode, c)] for c in CATEGORIES)
        return out


def window_for(k: int, hits: list[str], window: list[str]) -> list[str]:
    return [w.split("|", 1)[1] for w in window if int(w.split("|", 1)[0]) < k]


def search_options(args: argparse.Namespace, mode: Mode) -> SearchOptions:
    """The bench's search: its knobs on top of the service's defaults (unset knobs: defaults)."""
    extra: dict[str, Any] = {}
    if args.candidate_top_k:
        extra["candidate_top_k"] = args.candidate_top_k
    fusion: dict[str, Any] = {}
    if args.fusion:
        fusion["method"] = args.fusion
    if args.rrf_k is not None:
        fusion["k"] = args.rrf_k
    for item in args.list_weight:
        name, _, value = item.partition("=")
        fusion[name] = float(value)
    if args.vector_weight is not None:
        fusion.setdefault("method", "weighted")
        fusion["vector"] = args.vector_weight
    if fusion:
        extra["fusion"] = fusion
    if args.no_passages:
        extra["passages"] = False
    if args.subject_boost is not None:
        extra["subject_boost"] = args.subject_boost
    if args.expand_hops is not None:
        extra["expand_hops"] = args.expand_hops
    return SearchOptions.build(
        top_k=max(KS),
        mode=mode,
        prev_turns=args.window,
        next_turns=args.window,
        related_limit=0,
        track_access=False,
        **extra,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("data", type=Path, help="a LoCoMo-shaped JSON file")
    parser.add_argument("--limit", type=int, default=0, help="first N conversations only")
    parser.add_argument("--questions", type=int, default=0, help="first N questions each")
    parser.add_argument("--window", type=int, default=2, help="prev/next turns counted")
    parser.add_argument("--candidate-top-k", type=int, default=None)
    parser.add_argument(
        "--fusion", choices=["combsum", "rrf", "weighted"], default=None, help="fusion method"
    )
    parser.add_argument("--rrf-k", type=int, default=None, help="k of rank fusion (implies rrf)")
    parser.add_argument(
        "--list-weight",
        action="append",
        default=[],
        metavar="LIST=W",
        help="a list's fusion weight (fulltext, vector, passage, graph); repeatable",
    )
    parser.add_argument(
        "--vector-weight", type=float, default=None, help="weighted fusion: vector list weight"
    )
    parser.add_argument("--no-passages", action="store_true", help="search without passages")
    parser.add_argument("--subject-boost", type=float, default=None, help="0 turns it off")
    parser.add_argument("--expand-hops", type=int, default=None, help="graph expansion (0 or 1)")
    parser.add_argument(
        "--consolidate",
        default=None,
        metavar="ENRICHERS",
        help="run the consolidator over each conversation before asking, with these enrichers "
        "(comma-separated: time, mentions; 'none' drains the queue adding nothing)",
    )
    parser.add_argument("--captions", action="store_true", help="append image captions")
    parser.add_argument("--modes", default="fulltext,vector,hybrid")
    parser.add_argument("--keep", action="store_true", help="keep the scopes afterwards")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help="a results JSON (e.g. bench/results/locomo-dev.json) to put this run's hybrid "
        "figures in, as --label's ablation row or, with --as-defaults, as the defaults",
    )
    parser.add_argument("--label", default="", help="the ablation row's name (with --record)")
    parser.add_argument("--as-defaults", action="store_true", help="record as the defaults")
    args = parser.parse_args(argv)

    samples: list[dict[str, Any]] = json.loads(args.data.read_text(encoding="utf-8"))
    if args.limit:
        samples = samples[: args.limit]
    modes = [Mode(m) for m in args.modes.split(",")]
    memory = Memory.connect(Settings.from_env())
    embedder = memory.embedder
    print(
        f"embedder {embedder.id}, query prefix {embedder.query_prefix!r}, "
        f"document prefix {embedder.doc_prefix!r}"
    )
    options = {mode: search_options(args, mode) for mode in modes}
    tally = Tally()
    load_seconds = 0.0
    latencies: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    run_id = uuid.uuid4().hex[:8]
    scopes: list[str] = []
    try:
        for sample in samples:
            scope = f"locomo-{run_id}-{sample['sample_id']}"
            scopes.append(scope)
            started = time.perf_counter()
            n = load(memory, scope, sample, args.captions)
            load_seconds += time.perf_counter() - started
            print(
                f"{sample['sample_id']}: {n} turns loaded in {time.perf_counter() - started:.1f}s"
            )
            if args.consolidate is not None:
                consolidate(memory, scope, args.consolidate)
            for qa, gold in graded_questions(sample, args.questions):
                for mode in modes:
                    t0 = time.perf_counter()
                    result = memory.search(scope, str(qa["question"]), options=options[mode])
                    if mode is Mode.HYBRID:
                        latencies.append((time.perf_counter() - t0) * 1000.0)
                        for stage, ms in result.timings_ms.items():
                            stages[stage].append(ms)
                    hits = [dia(h.fact) for h in result.hits]
                    rank_of = {h.fact.id: i for i, h in enumerate(result.hits)}
                    window = [
                        f"{rank_of[r.hit_id]}|{dia(r.fact)}"
                        for r in result.related
                        if r.reason == "turn_window"
                    ]
                    tally.add(mode.value, int(qa["category"]), gold, hits, window)
    finally:
        if not args.keep:
            for scope in scopes:
                delete_scope(memory.db, scope)
        memory.close()

    print()
    header = f"{'mode':<9}{'measure':<16}" + "".join(
        f"{CATEGORY_NAMES[c][:11]:>12}" for c in CATEGORIES
    )
    print(header + f"{'overall':>10}")
    for mode in modes:
        for measure in MEASURES:
            cells = "".join(f"{tally.recall(mode.value, measure, c):>12.3f}" for c in CATEGORIES)
            overall = tally.recall(mode.value, measure, None)
            print(f"{mode.value:<9}{measure:<16}{cells}{overall:>10.3f}")
    counts = [tally.counts[(modes[0].value, c)] for c in CATEGORIES]
    print("questions per category:", dict(zip(CATEGORIES, counts, strict=True)))
    print(f"turns loaded in {load_seconds:.1f}s in all")
    latency: dict[str, float] = {}
    if latencies:
        ordered = sorted(latencies)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        latency = {"p50_ms": round(statistics.median(ordered), 1), "p95_ms": round(p95, 1)}
        print(
            f"hybrid search latency (Python API, embedding included): "
            f"p50 {latency['p50_ms']:.1f} ms, p95 {latency['p95_ms']:.1f} ms over {len(ordered)}"
        )
        parts = ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages.items())
        print(f"median per stage (ms): {parts}")
    if args.record is not None:
        record(args, argv, embedder.id, options, tally, modes, latency)
    return 0


def record(
    args: argparse.Namespace,
    argv: list[str] | None,
    embedder_id: str,
    options: dict[Mode, SearchOptions],
    tally: Tally,
    modes: list[Mode],
    latency: dict[str, float],
) -> None:
    """Put this run into the results JSON (and its Markdown twin beside it)."""
    path: Path = args.record
    results: dict[str, Any] = (
        json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"ablation": []}
    )
    main_mode = Mode.HYBRID if Mode.HYBRID in modes else modes[0]
    chosen = options[main_mode]
    row: dict[str, Any] = {
        **{m: v for m, v in tally.figures(main_mode.value).items() if m in MEASURES},
        "settings": {
            "embedder": embedder_id,
            "mode": main_mode.value,
            "fusion": dataclasses.asdict(chosen.fusion),
            "passages": chosen.passages,
            "subject_boost": chosen.subject_boost,
            "candidate_top_k": chosen.candidate_top_k,
            "window": args.window,
            "captions": args.captions,
            "expand_hops": chosen.expand_hops,
            "consolidate": args.consolidate,
        },
        "command": command(sys.argv[1:] if argv is None else argv),
        "latency": latency,
        "modes": {mode.value: tally.figures(mode.value) for mode in modes},
    }
    if args.as_defaults:
        results = {"defaults": row, **{k: v for k, v in results.items() if k != "defaults"}}
    else:
        row = {"label": args.label or "run", **row}
        results["ablation"] = [
            r for r in results.get("ablation", []) if r.get("label") != row["label"]
        ] + [row]
    path.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    path.with_suffix(".md").write_text(markdown(results), encoding="utf-8")
    print(f"recorded in {path} and {path.with_suffix('.md')}")


def command(argv: list[str]) -> str:
    """The shell command that reproduces a run, with the model the service was told to load."""
    env = [f"{name}={os.environ[name]}" for name in MODEL_ENV if os.environ.get(name)]
    return shlex.join([*env, "bench/locomo.py", *argv])


def markdown(results: dict[str, Any]) -> str:
    """The results JSON as tables: defaults per category and mode, then the ablation."""
    lines = ["# LoCoMo retrieval, development half", ""]
    defaults = results.get("defaults")
    if defaults:
        lines += [
            "Defaults: `" + defaults["command"] + "`",
            "",
            "Settings: `" + json.dumps(defaults["settings"]) + "`",
            "",
            "| mode | category | " + " | ".join(MEASURES) + " |",
            "|---|---|" + "---|" * len(MEASURES),
        ]
        for mode, figures in defaults["modes"].items():
            for name, cells in [("overall", figures), *figures["categories"].items()]:
                values = " | ".join(f"{cells[m]:.3f}" for m in MEASURES)
                lines.append(f"| {mode} | {name} | {values} |")
        if defaults.get("latency"):
            lat = defaults["latency"]
            lines += [
                "",
                f"Hybrid search, Python API: p50 {lat['p50_ms']} ms, p95 {lat['p95_ms']} ms",
            ]
        lines.append("")
    lines += [
        "## Ablation (hybrid unless the command says otherwise)",
        "",
        "| label | " + " | ".join(MEASURES) + " | command |",
        "|---|" + "---|" * (len(MEASURES) + 1),
    ]
    for row in results.get("ablation", []):
        values = " | ".join(f"{row[m]:.3f}" for m in MEASURES)
        lines.append(f"| {row['label']} | {values} | `{row['command']}` |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
