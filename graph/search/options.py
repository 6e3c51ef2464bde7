"""What a search may ask for, with its defaults and limits, checked before any query runs.

Field names in errors are the Python (snake_case) names; the GraphQL and REST layers rename
them to their own spelling.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.errors import ValidationError
from graph.write.validation import check_clean, parse_time

MAX_TOP_K = 100
MAX_CANDIDATE_TOP_K = 1_000
MAX_QUERY_CHARS = 4_000
MAX_TURNS = 20
MAX_RELATED = 100
MAX_STANDING = 20
MAX_LIST = 1_000
DEFAULT_RECENCY_TAU_DAYS = 30.0
# Added to the relevance (0..1) of candidates whose subject the query names, when it names
# exactly one; 0.2 measured best on LoCoMo dev (0.1-0.5 all help, bench/results/locomo-dev.md).
DEFAULT_SUBJECT_BOOST = 0.2
# Subtracted from a chunk's vector score (index scale, (1 + cos) / 2) before it competes with
# its fact's first window (search_candidates.cypher). Every window of a long assistant answer is
# one more chance to lie near a question by accident: with no discount the vector list alone
# fell on BEAM dev from hit@10 0.721 to 0.659 once messages were chunked; at 0.005 it is 0.726
# and the default's 0.737 -> 0.754, above both lists alone (0.01: 0.765; 0.02 and more, as if
# no chunk counted: 0.771; bench/ranker.py --discount). LoCoMo has no chunks. Not more: the
# window that holds a 6,000-character message's answer in its last paragraph led the nearest
# short fact by 0.0065 (tests/test_chunks.py), and a question about it must still find it.
DEFAULT_CHUNK_DISCOUNT = 0.005
# A full-text or passage match counts in full, under COMBSUM, for a fact of up to this many
# characters, and in proportion beyond (chars / length). BM25 normalises length only against the
# index's average, and min-max standing does not at all: among one project's long messages a
# long assistant answer that repeats the question's words stood above the short user message
# holding the answer. On BEAM dev, alone in its database, the full-text list finds 0.61 where
# the vector list finds 0.73; COMBSUM fell to 0.70 with both text lists in full, and is 0.77
# with this (0.77 also beside other scopes' facts). LoCoMo's turns are short: no figure moved
# from 400 to 2,000 (bench/ranker.py, bench/README.md "Long texts in the text lists").
DEFAULT_TEXT_MATCH_CHARS = 500
# A thread search (`thread`) ranks at least this many candidates per list: its hits are many
# pieces of one topic (bench/README.md "Questions that need many pieces").
THREAD_CANDIDATES = 100


class Mode(enum.StrEnum):
    HYBRID = "hybrid"
    FULLTEXT = "fulltext"
    VECTOR = "vector"


class FusionMethod(enum.StrEnum):
    MODEL = "model"
    RRF = "rrf"
    WEIGHTED = "weighted"
    COMBSUM = "combsum"


@dataclass(frozen=True)
class Fusion:
    """How the candidate lists are fused; list weights count for WEIGHTED and COMBSUM.

    COMBSUM (the default) adds each list's min-max normalised index scores: it keeps what each
    list knows about how far apart its candidates are, where rank fusion flattened a clear
    full-text winner to the vector list's guess (bench/results/locomo-dev.md), and on both
    development sets it beats each list alone (bench/results/recall.md). MODEL orders by each
    candidate's relevance (graph/search/relevance.py), the chance it answers the query from its
    own signals alone, which every hit reports whatever the fusion: it is what a caller can
    threshold, but without the lists' standings it ordered BEAM two points of hit@10 worse
    (bench/README.md). RRF with k = 60, the default before COMBSUM, is what `fusion: {k: 60}`
    (a k without a method) gives.
    """

    method: FusionMethod = FusionMethod.COMBSUM
    k: int = 60
    fulltext: float = 1.0
    vector: float = 1.0
    graph: float = 1.0
    passage: float = 1.0
    # The graph list of terms (graph/search/graph_list.py): 0 leaves it unasked.
    terms: float = 0.0

    def weights(self) -> dict[str, float]:
        if self.method in (FusionMethod.RRF, FusionMethod.MODEL):
            return {}
        return {
            "fulltext": self.fulltext,
            "vector": self.vector,
            "graph": self.graph,
            "passage": self.passage,
            # Only when asked: the graph list is not asked otherwise (graph/search/graph_list.py).
            **({"terms": self.terms} if self.terms > 0 else {}),
        }


@dataclass(frozen=True)
class Weights:
    """The composite score's weights: relevance, importance / 10, recency."""

    relevance: float = 1.0
    importance: float = 1.0
    recency: float = 1.0


@dataclass(frozen=True)
class Decay:
    """Multiply each score by strength * exp(-days since last access / tau_days)."""

    tau_days: float


@dataclass(frozen=True)
class SearchOptions:
    top_k: int = 10
    candidate_top_k: int = 60
    mode: Mode = Mode.HYBRID
    fusion: Fusion = field(default_factory=Fusion)
    weights: Weights = field(default_factory=Weights)
    decay: Decay | None = None
    recency_tau_days: float = DEFAULT_RECENCY_TAU_DAYS
    partitions: tuple[str, ...] | None = None
    tags: tuple[str, ...] = ()
    include_quarantined: bool = False
    # Facts past their expiry date too (mem0's `show_expired`).
    include_expired: bool = False
    as_of: datetime | None = None
    exclude_ids: tuple[str, ...] = ()
    expand_hops: int = 0
    prev_turns: int = 0
    next_turns: int = 0
    related_limit: int = 10
    context_id: str | None = None
    track_access: bool = True
    passages: bool = True
    subject_boost: float = DEFAULT_SUBJECT_BOOST
    # A first-person question names the user: the `user` role's facts of a transcript get the
    # subject boost and the relevance of a named subject (graph/search/subjects.py).
    asker: bool = True
    # A question framed as an ordering, a summary or a span of conversations asks the lists
    # with its topic alone (graph/search/frames.py).
    frames: bool = True
    chunk_discount: float = DEFAULT_CHUNK_DISCOUNT
    text_match_chars: int = DEFAULT_TEXT_MATCH_CHARS
    # Among the hits, a newer statement that updates an older one ranks above it
    # (graph/search/newer.py).
    newer_first: bool = True
    # Hits whose relevance is below this are left out (0..1; 0 keeps every hit).
    min_score: float = 0.0
    # How many of the scope's standing instructions and preferences that bear on the query come
    # back beside the hits (graph/search/standing.py); 0 asks for none.
    standing_limit: int = 5
    # The hits as a thread: the top_k facts of the query's topic in the order they were said
    # (valid from, then session and turn), from a deeper pool of candidates.
    thread: bool = False

    @classmethod
    def build(cls, **options: Any) -> SearchOptions:
        """Options from keyword arguments (plain dicts allowed for nested ones), validated."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValidationError(unknown[0], "unknown search option")
        values = {k: v for k, v in options.items() if v is not None}
        for name, kind in (("fusion", Fusion), ("weights", Weights), ("decay", Decay)):
            raw = values.get(name)
            if isinstance(raw, Mapping):
                values[name] = _nested(name, kind, raw)
        for name in ("partitions", "tags", "exclude_ids"):
            if name in values:
                values[name] = _strings(name, values[name])
        if "mode" in values:
            values["mode"] = _enum("mode", Mode, values["mode"])
        if "as_of" in values:
            values["as_of"] = parse_time("as_of", values["as_of"])
        return cls(**values).validated()

    def validated(self) -> SearchOptions:
        _int_range("top_k", self.top_k, 1, MAX_TOP_K)
        _int_range("candidate_top_k", self.candidate_top_k, 1, MAX_CANDIDATE_TOP_K)
        _int_range("expand_hops", self.expand_hops, 0, 1)
        _int_range("prev_turns", self.prev_turns, 0, MAX_TURNS)
        _int_range("next_turns", self.next_turns, 0, MAX_TURNS)
        _int_range("related_limit", self.related_limit, 0, MAX_RELATED)
        _int_range("standing_limit", self.standing_limit, 0, MAX_STANDING)
        _int_range("fusion.k", self.fusion.k, 0, 10_000)
        if not isinstance(self.fusion.method, FusionMethod):
            raise ValidationError("fusion.method", "must be model, rrf, weighted or combsum")
        for name in ("fulltext", "vector", "graph", "passage", "terms"):
            _number(f"fusion.{name}", getattr(self.fusion, name), 0.0, 1_000.0)
        for name in ("relevance", "importance", "recency"):
            _number(f"weights.{name}", getattr(self.weights, name), 0.0, 1_000.0)
        w = self.weights
        if w.relevance + w.importance + w.recency <= 0:
            raise ValidationError("weights", "at least one weight must be positive")
        if self.decay is not None:
            _number("decay.tau_days", self.decay.tau_days, 1e-6, 1e6)
        _number("recency_tau_days", self.recency_tau_days, 1e-6, 1e6)
        _number("subject_boost", self.subject_boost, 0.0, 10.0)
        _number("min_score", self.min_score, 0.0, 1.0)
        _number("chunk_discount", self.chunk_discount, 0.0, 1.0)
        _int_range("text_match_chars", self.text_match_chars, 0, 1_000_000)
        for flag in ("passages", "newer_first", "include_expired", "thread", "asker", "frames"):
            if not isinstance(getattr(self, flag), bool):
                raise ValidationError(flag, "must be true or false")
        if not isinstance(self.mode, Mode):
            raise ValidationError("mode", "must be hybrid, fulltext or vector")
        if self.partitions is not None and not self.partitions:
            raise ValidationError("partitions", "must not be an empty list (omit it instead)")
        if self.context_id is not None and (
            not isinstance(self.context_id, str) or not self.context_id.strip()
        ):
            raise ValidationError("context_id", "must be a non-empty string")
        for name in ("partitions", "tags", "exclude_ids"):
            for item in getattr(self, name) or ():
                if isinstance(item, str):
                    check_clean(name, item)
        if isinstance(self.context_id, str):
            check_clean("context_id", self.context_id)
        return self


def check_query(query: Any) -> str:
    if not isinstance(query, str):
        raise ValidationError("query", "must be a string")
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationError("query", f"longer than {MAX_QUERY_CHARS} characters")
    if "\x00" in query:
        raise ValidationError("query", "contains a NUL character")
    return query


def _nested(name: str, kind: type[Any], raw: Mapping[str, Any]) -> Any:
    known = {f.name for f in dataclasses.fields(kind)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValidationError(f"{name}.{unknown[0]}", "unknown field")
    values = {k: v for k, v in raw.items() if v is not None}
    if kind is Fusion and "method" in values:
        values["method"] = _enum(f"{name}.method", FusionMethod, values["method"])
    elif kind is Fusion and "k" in values:
        # A k names rank fusion: `fusion: {k: 60}` keeps its documented meaning (RRF).
        values["method"] = FusionMethod.RRF
    try:
        return kind(**values)
    except TypeError as exc:
        raise ValidationError(name, str(exc)) from None


def _enum(name: str, kind: type[enum.StrEnum], raw: Any) -> Any:
    try:
        return kind(str(raw).lower())
    except ValueError:
        allowed = ", ".join(m.value for m in kind)
        raise ValidationError(name, f"must be one of {allowed}") from None


def _strings(name: str, raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str) or not isinstance(raw, list | tuple | set | frozenset):
        raise ValidationError(name, "must be a list of strings")
    if len(raw) > MAX_LIST:
        raise ValidationError(name, f"more than {MAX_LIST} items")
    out: list[str] = []
    for item in raw:
        if not isinstance(item, str) or not item.strip():
            raise ValidationError(name, "each item must be a non-empty string")
        check_clean(name, item)
        if item not in out:
            out.append(item.strip() if name != "exclude_ids" else item)
    return tuple(out)


def _int_range(name: str, value: Any, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(name, "must be an integer")
    if not low <= value <= high:
        raise ValidationError(name, f"must be between {low} and {high}, got {value}")


def _number(name: str, value: Any, low: float, high: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(name, "must be a number")
    if not math.isfinite(value) or not low <= value <= high:
        raise ValidationError(name, f"must be between {low:g} and {high:g}, got {value}")
