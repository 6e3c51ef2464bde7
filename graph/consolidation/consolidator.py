"""The consolidator: takes queued facts off the queue a batch at a time and enriches them.

Every write queues the facts it creates (`consolidation_queued_at`, set by
`graph.storage.store.fact_properties`, indexed by cypher/schema/013_consolidation.cypher). A batch
is
read in queue order, worked out outside any transaction (the rules, the model for a changed
index text), then written in one transaction that also takes the facts off the queue and
records one audit event each (cypher/consolidation_apply.cypher). A batch is all or nothing:
a worker killed in the middle leaves its batch queued, and the next run does it once.

What a fact gains is recomputed from the fact alone, and kept apart from its original index
text (`consolidation_suffix`), so consolidating a fact again replaces the earlier additions
instead of stacking them: re-runs are idempotent.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graph.config import ConsolidationSettings
from graph.consolidation import mentions as mentions_mod
from graph.consolidation import temporal
from graph.consolidation.llm_enrichers import WINDOW, EnrichmentFailed, LLMEnrichers, Turn
from graph.errors import Conflict, FactgraphError, NotFound
from graph.observability import metrics
from graph.recall.llm import ChatClient
from graph.write import chunks
from graph.write.facts import FactInput, read_time
from graph.write.validation import check_scope

if TYPE_CHECKING:
    from neo4j import ManagedTransaction

    from graph.memory import Memory

log = logging.getLogger("factgraph.consolidation")

ACTOR = "consolidator"
LIVE = ("active", "quarantined")
EXPIRY_BATCH = 100
_AUDIT_NAMESPACE = uuid.UUID("7d0f8f0e-4c1e-4a53-9b52-7f1c2a39c0de")


@dataclass(frozen=True)
class QueuedScope:
    scope: str
    queued: int
    oldest: datetime | None


@dataclass(frozen=True)
class QueueStatus:
    """A scope's queue as GraphQL and the CLI report it."""

    scope: str
    queued: int
    oldest_queued_at: datetime | None
    lag_seconds: float
    enrichers: tuple[str, ...]


@dataclass
class RunSummary:
    facts: int = 0
    batches: int = 0
    expired: int = 0
    seconds: float = 0.0
    scopes: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.facts / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class _Planned:
    row: dict[str, Any]
    text_for_vector: str | None
    text: str = ""  # the fact's own text, whose windows past the model's are its chunks


class Consolidator:
    """The consolidation work itself, shared by the background worker and the CLI."""

    def __init__(
        self,
        memory: Memory,
        settings: ConsolidationSettings | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        llm: LLMEnrichers | None = None,
    ) -> None:
        self.memory = memory
        self.settings = settings or memory.settings.consolidation
        self.clock = clock or memory.clock
        wanted = self.settings.extract or self.settings.situate
        if llm is None and wanted and memory.settings.llm.configured:
            llm = LLMEnrichers(ChatClient(memory.settings.llm))
        self.llm = llm if wanted else None

    def close(self) -> None:
        if self.llm is not None:
            self.llm.close()

    @property
    def enrichers(self) -> tuple[str, ...]:
        on = [("time", self.settings.time), ("mentions", self.settings.mentions)]
        if self.llm is not None:
            on += [("extract", self.settings.extract), ("context", self.settings.situate)]
        names = [name for name, enabled in on if enabled]
        if self.settings.expiry != "off":
            names.append(f"expiry:{self.settings.expiry}")
        return tuple(names)

    # -- the queue -------------------------------------------------------------------------
    def queued_scopes(self, limit: int = 1_000) -> list[QueuedScope]:
        """Scopes with queued facts, longest waiting first; updates the depth and lag gauges."""
        records = self.memory.db.read("consolidation_scopes", {"limit": limit})
        out = [QueuedScope(r["scope"], int(r["queued"]), read_time(r["oldest"])) for r in records]
        metrics.CONSOLIDATION_DEPTH.set(sum(s.queued for s in out))
        oldest = min((s.oldest for s in out if s.oldest is not None), default=None)
        metrics.CONSOLIDATION_LAG.set(_age(self.clock(), oldest))
        return out

    def status(self, scope: str) -> QueueStatus:
        check_scope(scope)
        record = self.memory.db.read("consolidation_status", {"scope": scope})[0]
        oldest = read_time(record["oldest"])
        return QueueStatus(
            scope, int(record["queued"]), oldest, _age(self.clock(), oldest), self.enrichers
        )

    def requeue(self, scope: str) -> int:
        """Queue every live fact of the scope again; returns how many."""
        check_scope(scope)
        records = self.memory.db.write(
            "consolidation_requeue", {"scope": scope, "now": self.clock()}
        )
        return int(records[0]["queued"]) if records else 0

    # -- the work --------------------------------------------------------------------------
    def run_batch(self, scope: str, limit: int | None = None) -> int:
        """Consolidate the scope's next batch; returns how many facts left the queue."""
        started = time.perf_counter()
        rows = self.memory.db.read(
            "consolidation_batch", {"scope": scope, "limit": limit or self.settings.batch_size}
        )
        if not rows:
            return 0
        finder = self._finder(scope) if self.settings.mentions else None
        planned = [self._plan(dict(r), finder, *self._with_llm(scope, dict(r))) for r in rows]
        wanted = [p for p in planned if p.text_for_vector is not None]
        made = chunks.embed(
            self.memory.embedder, [(p.text_for_vector or "", p.text) for p in wanted]
        )
        # A new index text means new windows: the fact's chunks are replaced with its vector.
        tails: list[dict[str, Any]] = []
        for p, embedded in zip(wanted, made, strict=True):
            p.row["embedding"] = embedded.vector
            tails.append(chunks.row(str(p.row["id"]), scope, embedded.chunks))
        now = self.clock()

        def work(tx: ManagedTransaction) -> int:
            from graph.storage.db import run

            records = run(
                tx,
                "consolidation_apply",
                scope=scope,
                rows=[p.row for p in planned],
                now=now,
                actor=ACTOR,
            )
            applied = {str(r["id"]) for r in records}  # a fact queued again is left alone
            chunks.write(tx, [t for t in tails if t["fact_id"] in applied], replace=True)
            return len(records)

        done = self.memory.db.write_tx(work, "consolidate")
        seconds = time.perf_counter() - started
        metrics.CONSOLIDATION_FACTS.inc(done)
        if seconds > 0:
            metrics.CONSOLIDATION_RATE.set(done / seconds)
        return done

    def expire(self, scope: str | None = None, limit: int = 100) -> int:
        """Deal with live facts past their expires_at (FACTGRAPH_CONSOLIDATE_EXPIRY); returns
        how many.

        `hide` (the default) keeps them, as mem0 does: reads hide them already, mem0's
        `show_expired` shows them and an update may clear the date; the sweep only takes them
        out of exact deduplication (their `live_hash`), so writing the same text again makes a
        new, visible fact. `forget` and `purge` retire them, each with an audit entry.
        """
        action = self.settings.expiry
        if action == "off":
            return 0
        if action == "hide":
            hidden = self.memory.db.write(
                "consolidation_hide", {"scope": scope, "now": self.clock(), "limit": limit}
            )
            done = int(hidden[0]["hidden"]) if hidden else 0
            metrics.CONSOLIDATION_EXPIRED.inc(done)
            return done
        records = self.memory.db.read(
            "consolidation_expired", {"scope": scope, "now": self.clock(), "limit": limit}
        )
        done = 0
        for r in records:
            reason = f"expired at {r['expires_at']}"
            try:
                if action == "purge":
                    done += int(self.memory.purge(r["scope"], r["id"], reason=reason, actor=ACTOR))
                else:
                    self.memory.forget(r["scope"], r["id"], reason=reason, actor=ACTOR)
                    done += 1
            except (NotFound, Conflict):  # retired meanwhile by someone else: nothing to do
                continue
        metrics.CONSOLIDATION_EXPIRED.inc(done)
        return done

    def run(
        self,
        scope: str | None = None,
        *,
        on_batch: Callable[[str, int], None] | None = None,
    ) -> RunSummary:
        """Work the queue (one scope's, or every scope's, longest waiting first) until empty."""
        if scope is not None:
            check_scope(scope)
        summary = RunSummary()
        started = time.perf_counter()
        while (expired := self.expire(scope, limit=EXPIRY_BATCH)) > 0:
            summary.expired += expired
        scopes = [scope] if scope is not None else [s.scope for s in self.queued_scopes()]
        while scopes:
            current = scopes.pop(0)
            summary.scopes.append(current)
            while True:
                done = self.run_batch(current)
                if done == 0:
                    break
                summary.facts += done
                summary.batches += 1
                if on_batch is not None:
                    on_batch(current, done)
            if scope is None and not scopes:
                scopes = [s.scope for s in self.queued_scopes() if s.scope not in summary.scopes]
        summary.seconds = time.perf_counter() - started
        return summary

    # -- helpers ---------------------------------------------------------------------------
    def _finder(self, scope: str) -> mentions_mod.MentionFinder:
        records = self.memory.db.read(
            "consolidation_entities", {"scope": scope, "limit": mentions_mod.MAX_ENTITIES}
        )
        return mentions_mod.MentionFinder(
            mentions_mod.KnownEntity(r["canonical"], (r["name"] or "", *r["aliases"]))
            for r in records
        )

    def _with_llm(self, scope: str, r: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
        """The LLM enrichers on one queued turn: (index notes, what was extracted, failures).

        Extracted facts are written here, each in its own transaction with its DERIVED_FROM
        links (a kill before the batch commits leaves the turn queued; the next run's
        extraction then meets its own facts in exact dedup).
        """
        if (
            self.llm is None
            or r["status"] not in LIVE
            or r["source"] == ACTOR
            or r["session_id"] is None
            or r["turn"] is None
        ):
            return [], [], []
        records = self.memory.db.read(
            "consolidation_window",
            {"scope": scope, "session_id": r["session_id"], "turn": r["turn"], "before": WINDOW},
        )
        window = [Turn(x["id"], x["text"], x["turn"]) for x in records]
        if not window or window[-1].id != r["id"]:
            window = [*[t for t in window if t.id != r["id"]], Turn(r["id"], r["text"], r["turn"])]
        notes: list[str] = []
        done: list[str] = []
        failures: list[str] = []
        if self.settings.situate:
            try:
                notes.append("context: " + self.llm.situate(window))
            except EnrichmentFailed as exc:
                failures.append(str(exc))
        if self.settings.extract:
            try:
                found = self.llm.extract(window)
            except EnrichmentFailed as exc:
                failures.append(str(exc))
                found = []
            trusted = (r["source"] or "").casefold() in self.settings.trusted_sources
            for item in found:
                try:
                    decision = self.memory.remember_with_decision(
                        scope,
                        FactInput(
                            text=item.text,
                            subject=item.subject,
                            predicate=item.predicate,
                            object=item.object,
                            source=ACTOR,
                            trusted=trusted,
                            valid_from=read_time(r["valid_from"]),
                        ),
                        actor=ACTOR,
                        derived_from=item.sources,
                    )
                except FactgraphError as exc:
                    failures.append(f"extraction: {item.text[:80]!r} not written: {exc}")
                    continue
                done.append(f"{decision.kind.value} {decision.fact.id}")
        return notes, done, failures

    def _plan(
        self,
        r: dict[str, Any],
        finder: mentions_mod.MentionFinder | None,
        llm_notes: Sequence[str] = (),
        extracted: Sequence[str] = (),
        failures: Sequence[str] = (),
    ) -> _Planned:
        index_text: str = r["index_text"] or r["text"]
        old_suffix: str = r["suffix"] or ""
        base = index_text
        if old_suffix and index_text.endswith(old_suffix):
            base = index_text[: -len(old_suffix)]
        row: dict[str, Any] = {
            "id": r["id"],
            "queued_at": r["queued_at"],
            "audit_id": str(uuid.uuid5(_AUDIT_NAMESPACE, f"{r['id']}\x1f{r['queued_at']}")),
            "index_text": None,
            "suffix": "",
            "mentions": [],
            "embedding": None,
            "failures": [
                {
                    "audit_id": str(
                        uuid.uuid5(_AUDIT_NAMESPACE, f"{r['id']}\x1f{r['queued_at']}\x1f{n}")
                    ),
                    "reason": reason,
                }
                for n, reason in enumerate(failures)
            ],
            "error": "; ".join(failures) or None,
        }
        if r["status"] not in LIVE:
            row["reason"] = f"{r['status']}: taken off the queue without enrichment"
            return _Planned(row, None)
        parts: list[str] = []
        notes: list[str] = []
        if self.settings.time:
            valid_from = read_time(r["valid_from"])
            if valid_from is not None:
                notes = temporal.resolve(r["text"], valid_from)
                if notes:
                    parts.append("time: " + "; ".join(notes))
        notes = [*notes, *llm_notes]
        suffix = f" [{'; '.join(notes)}]" if notes else ""
        new_text = base + suffix
        vector_text: str | None = None
        if new_text != index_text:
            row["index_text"], row["suffix"] = new_text, suffix
            if r["embedder"] == self.memory.embedder.id:  # a caller's own vector is kept
                vector_text = new_text
        if finder is not None:
            linked = set(r["linked"])
            found = [c for c in finder.find(r["text"]) if c not in linked]
            if found:
                row["mentions"] = found
                parts.append("mentions: " + ", ".join(found))
        if llm_notes:
            parts.append("; ".join(llm_notes))
        if extracted:
            parts.append("extracted: " + ", ".join(extracted))
        if failures:
            parts.append(f"{len(failures)} failed (see consolidate_failed)")
        row["reason"] = "; ".join(parts) if parts else "nothing to add"
        return _Planned(row, vector_text, r["text"] or "")


def _age(now: datetime, oldest: datetime | None) -> float:
    return max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0
