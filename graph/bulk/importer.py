"""`factgraph import FILE`: facts from JSON Lines or CSV into Neo4j, fast, strict, re-runnable.

Two ways in. The full pipeline sends each row through `Memory.remember_with_decision`, exactly
as an agent's write, so duplicates, contradictions and untrusted rows are judged. The fast path
(`--fast`, for trusted bulk loads and for restoring an export) only does exact dedup, and writes
rows in `UNWIND` batches inside one managed transaction per batch with the storage layer's own
property map, so the facts are the nodes a remembered fact would be.

Re-running is always safe. Every row has an id (from the file, or derived from its content and
scope), a row whose id exists is left alone, and exact duplicates are absorbed without touching
the surviving fact; so importing a file twice adds nothing. A checkpoint after each committed
batch (each row, in pipeline mode) lets a killed import resume where it stopped, and because the
writes are idempotent, resuming from a stale checkpoint still ends in the same graph.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from neo4j import ManagedTransaction, Record
from tqdm import tqdm

from graph.bulk.checkpoint import Checkpoint, file_identity
from graph.bulk.fileformat import Header, is_header, read_header
from graph.bulk.rows import RawRecord, count_records, detect_format, first_record, read_records
from graph.bulk.settle import merge_wait_after, settle_vector_index, timeout_after
from graph.bulk.spec import (
    ID_NAMESPACE,
    EntityLink,
    EntityRow,
    FactRow,
    Row,
    known_fact_properties,
    parse_record,
)
from graph.errors import DatabaseUnavailable, FactgraphError, ValidationError
from graph.memory import Memory
from graph.reading import VERSION as READER_VERSION
from graph.reading import read, terms
from graph.storage import vector_shards
from graph.storage.db import run
from graph.storage.schema import check_vector_dimensions, vector_dimensions
from graph.storage.store import fact_properties
from graph.storage.wire import Rows, Vector, split_times
from graph.write import chunks, passages
from graph.write.facts import DecisionKind, FactInput
from graph.write.indexing import capped, content_hash, index_text, lexical_text
from graph.write.validation import parse_time

KEPT_ERRORS = 1000
SUPPLIED = "supplied"  # the embedder recorded for a vector that came with the fact
_STATE_KEYS = (
    "strength",
    "access_count",
    "last_accessed_at",
    "expired_at",
    "updated_at",
    "standing",
    "consolidation_queued_at",
)
SUPERSEDES, DERIVED = "supersedes", "derived_from"  # the kinds of link between facts


@dataclass(frozen=True)
class ImportOptions:
    path: Path
    scope: str | None = None
    format: str | None = None
    batch_size: int = 500
    max_errors: int = 100
    dry_run: bool = False
    fast: bool = False
    progress: bool = True
    restart: bool = False
    actor: str = "import"
    # Wait for Lucene to merge the vector index after a large import (graph/bulk/settle.py);
    # off, the import returns at once and searches stay slower until the merges are done.
    settle: bool = True
    # Rejected rows make the command fail (exit 1) unless the operator accepts losing them.
    allow_rejects: bool = False


@dataclass(frozen=True)
class RowError:
    line: int
    field: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.field}: {self.reason}"


@dataclass
class ImportSummary:
    """What an import did; counts include the part done by an earlier, interrupted run."""

    file: str
    mode: str
    dry_run: bool = False
    allow_rejects: bool = False
    records: int = 0
    valid: int = 0
    inserted: int = 0
    deduplicated: int = 0
    unchanged: int = 0
    superseded: int = 0
    merged: int = 0
    quarantined: int = 0
    rejected: int = 0
    embedded: int = 0
    entities_restored: int = 0
    links_missing: int = 0
    errors: list[RowError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    aborted: bool = False
    format_version: int = 1  # of an export (graph/bulk/fileformat.py); 1 for plain rows
    resumed_from: int = 0
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=dict)
    settled: str | None = None  # what graph/bulk/settle.py did to the vector index

    _COUNTS = (
        "records",
        "valid",
        "inserted",
        "deduplicated",
        "unchanged",
        "superseded",
        "merged",
        "quarantined",
        "rejected",
        "embedded",
        "entities_restored",
    )

    def counts(self) -> dict[str, int]:
        return {name: int(getattr(self, name)) for name in self._COUNTS}

    def restore(self, state: Mapping[str, Any]) -> None:
        for name, value in dict(state.get("counts", {})).items():
            if name in self._COUNTS:
                setattr(self, name, int(value))
        self.errors = [RowError(**e) for e in state.get("errors", [])]

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["errors"] = [asdict(e) for e in self.errors]
        data["rate_per_second"] = self.rate
        return data

    @property
    def failed(self) -> bool:
        """Whether the command fails: stopped early, or rows lost the operator did not accept."""
        return self.aborted or (self.rejected > 0 and not self.allow_rejects)

    @property
    def rate(self) -> float:
        done = self.records - self.resumed_from
        return round(done / self.seconds, 1) if self.seconds > 0 else 0.0

    def render(self) -> str:
        """The closing report an operator reads."""
        verb = "validated (dry run)" if self.dry_run else f"imported ({self.mode})"
        lines = [f"{self.file}: {self.records} records {verb} in {self.seconds:.1f}s"]
        if self.resumed_from:
            lines.append(f"  resumed after record {self.resumed_from}")
        if self.dry_run:
            lines.append(f"  valid         {self.valid}")
        else:
            lines += [
                f"  inserted      {self.inserted}",
                f"  deduplicated  {self.deduplicated}",
                f"  superseded    {self.superseded}",
            ]
            if self.merged:
                lines.append(f"  merged        {self.merged}")
            if self.quarantined:
                lines.append(f"  quarantined   {self.quarantined}")
            lines.append(f"  unchanged     {self.unchanged}  (already imported)")
            if self.entities_restored:
                lines.append(f"  entities      {self.entities_restored}  (restored from export)")
            lines.append(f"  embedded      {self.embedded}  (vectors computed)")
        lines.append(f"  rejected      {self.rejected}")
        for error in sorted(self.errors, key=lambda e: e.line)[:20]:
            lines.append(f"    {error}")
        if self.rejected > 20:
            lines.append(f"    ... {self.rejected - 20} more")
        for warning in self.warnings[:20]:
            lines.append(f"  warning: {warning}")
        if self.settled:
            lines.append(f"  {self.settled}")
        if self.timings:
            spent = ", ".join(f"{k} {v:.1f}s" for k, v in self.timings.items() if v >= 0.05)
            lines.append(f"  time: {spent}")
        if self.aborted:
            lines.append(
                "  ABORTED: more rejected rows than --max-errors allows; fix the file or raise "
                "--max-errors, and run the same command again to continue"
            )
        elif self.failed:
            would = "would be" if self.dry_run else "were"
            lines.append(
                f"  FAILED: {self.rejected} rows {would} rejected and not imported; fix them "
                "and run the same command again, or pass --allow-rejects to accept the loss"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class _Prepared:
    row: FactRow
    entities: tuple[EntityLink, ...]
    valid_from: datetime
    index_text: str
    lexical_text: str
    subject_key: str | None
    needs_vector: bool
    # The file's vector was made by this model (an export): only a long text's chunks are due.
    model_vector: bool = False


Item = tuple[int, Row | RowError]


@dataclass
class _Tally:
    """Counts and errors of a batch, applied to the summary when the batch is committed."""

    counts: Counter[str] = field(default_factory=Counter)
    errors: list[RowError] = field(default_factory=list)


@dataclass
class _Job:
    future: Future[tuple[list[Record], list[Record], int]]
    tally: _Tally
    links: list[dict[str, Any]]  # supersede links, then derived-from links, as `linked` answers
    end: int
    size: int


class Importer:
    """One import run; `run()` returns its summary (and leaves a checkpoint if interrupted)."""

    # The statements that complete a fast-path fact after `import_facts` creates it. Every run
    # writes them all; bench/import_speed.py leaves some out to measure what each one costs.
    stages: tuple[str, ...] = ("entities", "tags", "audit", "passages", "terms")

    def __init__(self, memory: Memory, options: ImportOptions) -> None:
        if options.batch_size < 1:
            raise ValueError("--batch-size must be at least 1")
        if options.max_errors < 0:
            raise ValueError("--max-errors must not be negative")
        self.memory = memory
        self.options = options
        self.path = options.path
        self.mode = "fast" if options.fast else "pipeline"
        self.summary = ImportSummary(
            file=str(options.path),
            mode=self.mode,
            dry_run=options.dry_run,
            allow_rejects=options.allow_rejects,
        )
        self.timings: dict[str, float] = {
            "parse": 0.0,
            "wait for rows": 0.0,
            "embed": 0.0,
            "neo4j": 0.0,
            "neo4j writes": 0.0,
            "waiting for neo4j": 0.0,
            "remember": 0.0,
        }
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-writer")
        self._inflight: _Job | None = None
        self._seen: dict[str, tuple[int, str]] = {}
        self._pending: list[dict[str, Any]] = []
        self._extra_names = known_fact_properties() | {"content_hash", "live_hash"}
        # The scopes this run's valid rows belong to: their vector shards are the ones the
        # import leaves unmerged segments in (settle, below).
        self.scopes: set[str] = set()
        self._bar: Any = None
        self.header: Header | None = None

    # -- the run ---------------------------------------------------------------------------
    def run(self) -> ImportSummary:
        started = time.perf_counter()
        if not self.path.is_file():
            raise ValueError(f"{self.path}: no such file")
        fmt = detect_format(self.path, self.options.format)
        embedder = self.memory.embedder
        check_vector_dimensions(self.memory.db, embedder.dimensions, embedder.id)
        self.dimensions = vector_dimensions(self.memory.db) or embedder.dimensions
        identity = {
            **file_identity(self.path),
            "scope": self.options.scope,
            "mode": self.mode,
            "format": fmt,
        }
        self.checkpoint = Checkpoint.for_job(self.memory.settings.home, "import", identity)
        state: dict[str, Any] = {}
        if not self.options.dry_run:
            if self.options.restart:
                self.checkpoint.clear()
            state = self.checkpoint.load()
        skip = int(state.get("records", 0))
        self.summary.restore(state)
        self.summary.resumed_from = skip
        self._pending = list(state.get("pending", []))
        self.header = self._header(fmt)
        offset = 0 if self.header is None else 1  # the header line is not a record to import
        if self.header is not None:
            self.summary.format_version = self.header.version
        total = count_records(self.path, fmt) - offset
        self._bar = tqdm(
            total=total,
            initial=skip,
            unit=" rows",
            desc=f"import {self.path.name}",
            file=sys.stderr,
            disable=not self.options.progress,
            mininterval=0.5,
            smoothing=0.1,
        )
        try:
            self._consume(read_records(self.path, fmt, skip=skip + offset), skip)
            if not self.summary.aborted and not self.options.dry_run:
                self._retry_pending()
                self.checkpoint.clear()
        finally:
            self._writer.shutdown(wait=True)
            self._bar.close()
        self.summary.seconds = round(time.perf_counter() - started, 3)
        main_thread = ("wait for rows", "embed", "neo4j", "waiting for neo4j", "remember")
        busy = sum(self.timings[k] for k in main_thread)
        self.timings["other"] = max(0.0, self.summary.seconds - busy)
        self.summary.timings = {k: round(v, 2) for k, v in self.timings.items()}
        return self.summary

    def _header(self, fmt: str) -> Header | None:
        """The export header on the file's first line, if it has one (ValueError if it is of
        a format or version this factgraph cannot read: nothing is imported then)."""
        first = first_record(self.path, fmt) if fmt == "jsonl" else None
        if first is None or first.data is None or not is_header(first.data):
            return None
        return read_header(first.data, line=first.line)

    def _consume(self, records: Iterator[RawRecord], skip: int) -> None:
        """Write batches while a reader thread parses and validates the next rows.

        Parsing is Python work and writing is mostly waiting for Neo4j, so overlapping them
        hides one behind the other; the queue is bounded, so memory stays at a few batches.
        """
        chunks: queue.Queue[list[Item] | BaseException | None] = queue.Queue(maxsize=2)
        stop = threading.Event()
        reader = threading.Thread(
            target=self._produce, args=(records, skip, chunks, stop), daemon=True
        )
        reader.start()
        batch: list[Item] = []
        errors_waiting = 0
        try:
            while True:
                with self._timed("wait for rows"):
                    chunk = chunks.get()
                if chunk is None:
                    break
                if isinstance(chunk, BaseException):
                    raise chunk
                for index, item in chunk:
                    batch.append((index, item))
                    errors_waiting += isinstance(item, RowError)
                    rejected = self.summary.rejected + self._inflight_errors() + errors_waiting
                    too_many = rejected > self.options.max_errors
                    if len(batch) >= self.options.batch_size or too_many:
                        self._flush(batch)
                        batch, errors_waiting = [], 0
                        if too_many:
                            self._drain()
                            self.summary.aborted = True
                            return
            if batch:
                self._flush(batch)
            self._drain()
            if self.summary.rejected > self.options.max_errors:
                self.summary.aborted = True
        finally:
            stop.set()
            reader.join(timeout=5)

    def _produce(
        self,
        records: Iterator[RawRecord],
        skip: int,
        out: queue.Queue[list[Item] | BaseException | None],
        stop: threading.Event,
    ) -> None:
        def put(value: list[Item] | BaseException | None) -> bool:
            while not stop.is_set():
                try:
                    out.put(value, timeout=0.1)
                    return True
                except queue.Full:
                    continue
            return False

        try:
            chunk: list[Item] = []
            index = skip
            started = time.perf_counter()
            for raw in records:
                index += 1
                chunk.append((index, self._parse(raw)))
                if len(chunk) >= self.options.batch_size:
                    self.timings["parse"] += time.perf_counter() - started
                    if not put(chunk):
                        return
                    chunk, started = [], time.perf_counter()
            self.timings["parse"] += time.perf_counter() - started
            if chunk and not put(chunk):
                return
            put(None)
        except BaseException as exc:  # handed to the main thread, which re-raises it
            put(exc)

    def _parse(self, raw: RawRecord) -> Row | RowError:
        if raw.error is not None:
            return RowError(raw.line, raw.error.field, raw.error.reason)
        assert raw.data is not None
        try:
            row = parse_record(
                raw.data,
                line=raw.line,
                target_scope=self.options.scope,
                fast=self.options.fast,
                dimensions=self.dimensions,
                extra_names=self._extra_names,
                exported=self.header is not None and self.header.version >= 2,
            )
        except ValidationError as exc:
            return RowError(raw.line, exc.field, exc.reason)
        if isinstance(row, FactRow):
            self.scopes.add(row.scope)
        return row

    def _flush(self, batch: list[Item]) -> None:
        if self.options.dry_run:
            self._dry(batch)
        elif self.options.fast:
            self._write_fast(batch)
        else:
            self._write_pipeline(batch)

    # -- bookkeeping -----------------------------------------------------------------------
    def _reject(self, error: RowError) -> None:
        self.summary.rejected += 1
        if len(self.summary.errors) < KEPT_ERRORS:
            self.summary.errors.append(error)

    def _first_sight(self, row: FactRow, tally: _Tally) -> bool:
        """False for a row whose id came earlier in this run (counted or rejected here)."""
        seen = self._seen.get(row.id)
        if seen is None:
            self._seen[row.id] = (row.line, row.fingerprint)
            return True
        line, fingerprint = seen
        if fingerprint == row.fingerprint:
            tally.counts["deduplicated"] += 1
        else:
            tally.errors.append(
                RowError(row.line, "id", f"{row.id!r} is already used on line {line}")
            )
        return False

    def _apply(self, tally: _Tally) -> None:
        for name, value in tally.counts.items():
            setattr(self.summary, name, getattr(self.summary, name) + value)
        for error in tally.errors:
            self._reject(error)
        tally.counts.clear()
        tally.errors.clear()

    def _save(self, records: int) -> None:
        self.checkpoint.save(
            {
                "records": records,
                "counts": self.summary.counts(),
                "errors": [asdict(e) for e in self.summary.errors],
                "pending": self._pending,
            }
        )

    @contextmanager
    def _stage_timer(self, stage: str) -> Iterator[None]:
        """Time one statement of a fast-path batch (on the writer thread), as `tx: <stage>`."""
        with self._timed(f"tx: {stage}"):
            yield

    @contextmanager
    def _timed(self, phase: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[phase] = self.timings.get(phase, 0.0) + time.perf_counter() - started

    # -- dry run ---------------------------------------------------------------------------
    def _dry(self, batch: list[Item]) -> None:
        tally = _Tally()
        for index, item in batch:
            self.summary.records = index
            if isinstance(item, RowError):
                tally.errors.append(item)
            elif isinstance(item, EntityRow) or self._first_sight(item, tally):
                tally.counts["valid"] += 1
        self._apply(tally)
        self._bar.update(len(batch))

    # -- fast path -------------------------------------------------------------------------
    def _write_fast(self, batch: list[Item]) -> None:
        """Prepare (and embed) this batch while the previous one is being written.

        Counts and errors of a batch are applied, and the checkpoint saved, only once the batch
        is committed, so a checkpoint never counts rows that a resumed run would read again.
        """
        tally = _Tally()
        facts: list[FactRow] = []
        entities: list[EntityRow] = []
        for _, item in batch:
            if isinstance(item, RowError):
                tally.errors.append(item)
            elif isinstance(item, EntityRow):
                entities.append(item)
            elif self._first_sight(item, tally):
                facts.append(item)
        existing = self._existing([row.id for row in facts])
        for row in [row for row in facts if row.id in existing]:
            self._unchanged_or_conflict(row, existing[row.id], tally)
        facts = [row for row in facts if row.id not in existing]
        now = self.memory.clock()
        prepared = [self._prepare(row, now) for row in facts]
        embedded = self._embed(prepared)
        tally.counts["embedded"] += sum(p.needs_vector for p in prepared)
        rows: list[dict[str, Any]] = []
        links: list[dict[str, Any]] = []
        for p, made in zip(prepared, embedded, strict=True):
            rows.append(self._params(p, made.vector, now, made.chunks))
            links += [
                {
                    "new": p.row.id,
                    "old": link.old_id,
                    "reason": link.reason,
                    "at": link.at,
                    "line": p.row.line,
                }
                for link in p.row.supersedes
            ]
        derived = [
            {"kind": DERIVED, "new": p.row.id, "old": source, "line": p.row.line}
            for p in prepared
            for source in p.row.derived_from
        ]
        restore = [{"scope": e.scope, "canonical": e.canonical, "props": e.props} for e in entities]
        actor = self.options.actor
        stages = self.stages
        timed = self._stage_timer

        def work(tx: ManagedTransaction) -> tuple[list[Record], list[Record], int]:
            with timed("facts"):
                wire = Rows(
                    {k: row[k] for k in ("line", "props", "times", "shard_label")} for row in rows
                )
                outcomes = run(tx, "import_facts", rows=wire)
            created = {
                str(r["fact_id"]): str(r["node"]) for r in outcomes if r["outcome"] == "insert"
            }
            new_rows = [row for row in rows if row["props"]["id"] in created]
            if new_rows:
                _link_created(tx, new_rows, created, now, actor, stages, timed)
                with timed("chunks"):
                    chunks.write(tx, [row["chunks"] for row in new_rows])
            linked: list[Record] = []
            if links:
                with timed("supersedes"):
                    linked = run(tx, "import_supersedes", links=_link_params(links))
            if derived:
                with timed("derived from"):
                    linked += run(tx, "import_derived", links=_derived_params(derived))
            if "passages" in stages:
                with timed("passages"):
                    passages.refresh_sessions(tx, [row["props"] for row in rows])
            restored = 0
            if restore:
                with timed("entities restored"):
                    restored = run(tx, "import_entities", entities=restore, now=now)[0]["restored"]
            return outcomes, linked, int(restored)

        def write() -> tuple[list[Record], list[Record], int]:
            if not rows and not restore:
                return [], [], 0
            started = time.perf_counter()
            try:
                return self.memory.db.write_tx(work, "import")
            finally:
                self.timings["neo4j writes"] += time.perf_counter() - started

        self._drain()
        self._inflight = _Job(
            self._writer.submit(write), tally, links + derived, batch[-1][0], len(batch)
        )

    def _drain(self) -> None:
        """Wait for the batch being written, then count it and move the checkpoint past it."""
        job, self._inflight = self._inflight, None
        if job is None:
            return
        with self._timed("waiting for neo4j"):
            outcomes, linked, restored = job.future.result()
        self._apply(job.tally)
        self._tally_fast(outcomes, linked, job.links)
        self.summary.entities_restored += restored
        self.summary.records = job.end
        self._save(job.end)
        self._bar.update(job.size)
        self._bar.set_postfix(self._postfix(), refresh=False)

    def _inflight_errors(self) -> int:
        return 0 if self._inflight is None else len(self._inflight.tally.errors)

    def _tally_fast(
        self, outcomes: Sequence[Record], linked: Sequence[Record], links: list[dict[str, Any]]
    ) -> None:
        for record in outcomes:
            outcome = record["outcome"]
            if outcome == "insert":
                self.summary.inserted += 1
            elif outcome == "dedup":
                self.summary.deduplicated += 1
            elif outcome == "present":
                self.summary.unchanged += 1
            else:
                self._reject(
                    RowError(int(record["line"]), "id", "already used by a fact in another scope")
                )
            if outcome != "conflict":
                self.summary.valid += 1
        for record, link in zip(linked, links, strict=True):
            if record["outcome"] == "linked" and link.get("kind") != DERIVED:
                self.summary.superseded += 1
            elif record["outcome"] == "missing":
                self._pending.append({**link, "at": _iso(link.get("at"))})

    def _retry_pending(self) -> None:
        """Supersede links whose old fact came later in the file (or never came)."""
        if not self._pending:
            return
        pending = [{**link, "at": parse_time("at", link.get("at"))} for link in self._pending]
        links = [link for link in pending if link.get("kind") != DERIVED]
        derived = [link for link in pending if link.get("kind") == DERIVED]

        def work(tx: ManagedTransaction) -> list[Record]:
            records = run(tx, "import_supersedes", links=_link_params(links)) if links else []
            if derived:
                records += run(tx, "import_derived", links=_derived_params(derived))
            return records

        with self._timed("neo4j"):
            records = self.memory.db.write_tx(work, "import")
        for record, link in zip(records, links + derived, strict=True):
            kind = DERIVED if link.get("kind") == DERIVED else SUPERSEDES
            if record["outcome"] == "linked" and kind == SUPERSEDES:
                self.summary.superseded += 1
            elif record["outcome"] == "missing":
                self.summary.links_missing += 1
                self.summary.warnings.append(
                    f"line {link['line']}: {kind}: no fact {link['old']!r} in the scope"
                )
        self._pending = []

    def _prepare(self, row: FactRow, now: datetime) -> _Prepared:
        fact, state = row.fact, row.state
        links = row.entities if row.entities is not None else self._resolve(fact)
        valid_from = fact.valid_from or now
        text_for_index = state.get("index_text") or index_text(fact, valid_from, self._mode)
        given = state.get("lexical_text")
        lexical = capped(given) if given else lexical_text(fact, [e.name for e in links])
        if "subject_key" in state:
            subject_key = state["subject_key"]
        else:
            subject_key = next((e.canonical for e in links if e.role == "subject"), None)
        stale = state.get("embedder") not in (None, SUPPLIED, self.memory.embedder.id)
        return _Prepared(
            row,
            links,
            valid_from,
            text_for_index,
            lexical,
            subject_key if fact.subject else None,
            row.vector is None or stale,
            row.vector is not None and state.get("embedder") == self.memory.embedder.id,
        )

    def _params(
        self,
        p: _Prepared,
        vector: list[float],
        now: datetime,
        made: Sequence[chunks.Chunk] = (),
    ) -> dict[str, Any]:
        row, state = p.row, p.row.state
        # As `Memory.remember` marks them: a vector from the file is "supplied", not the model's.
        embedder = self.memory.embedder.id if p.needs_vector else state.get("embedder", SUPPLIED)
        reading = read(row.fact.text, row.fact.subject)
        props = fact_properties(
            row.fact,
            fact_id=row.id,
            scope=row.scope,
            content_hash=content_hash(row.fact.text),
            index_text=p.index_text,
            lexical_text=p.lexical_text,
            subject_key=p.subject_key,
            embedding=vector,
            embedder=embedder or self.memory.embedder.id,
            status=row.status,
            now=now,
            reading=reading,
        )
        props["valid_from"] = p.valid_from
        for key in _STATE_KEYS:
            if key in state:
                props[key] = state[key]
        props.update(state.get("properties", {}))
        props["embedding"] = Vector(vector)
        plain, times = split_times(props)
        return {
            "line": row.line,
            "props": plain,
            "times": times,
            "shard_label": vector_shards.label(row.scope),
            "entities": [
                {"role": e.role, "canonical": e.canonical, "name": e.name, "type": e.type}
                for e in p.entities
            ],
            "audit_id": str(uuid.uuid5(ID_NAMESPACE, f"import:{row.id}")),
            "reason": f"imported from {self.path.name} line {row.line}",
            "chunks": chunks.row(row.id, row.scope, made),
            "terms": [term.row() for term in terms(reading, self.memory.resolver)],
        }

    # -- full pipeline ---------------------------------------------------------------------
    def _write_pipeline(self, batch: list[Item]) -> None:
        """Each row through `Memory.remember_with_decision`, committed and checkpointed singly.

        Rows without a vector are embedded by `Memory` itself, so the stored fact records the
        model that made its vector exactly as an agent's write does (a vector handed over would
        be recorded as "supplied").
        """
        rows = [item for _, item in batch if isinstance(item, FactRow)]
        dated = {row.line: row.fact for row in rows}
        for row in rows:
            if row.vector is not None:
                dated[row.line] = replace(row.fact, embedding=tuple(row.vector))
        existing = self._existing([row.id for row in rows])
        tally = _Tally()
        for index, item in batch:
            if isinstance(item, RowError):
                tally.errors.append(item)
            elif isinstance(item, FactRow) and self._first_sight(item, tally):
                if item.id in existing:
                    self._unchanged_or_conflict(item, existing[item.id], tally)
                else:
                    fact = dated[item.line]
                    if item.vector is None:
                        self.summary.embedded += 1
                    self._remember(item, fact)
                    existing[item.id] = item.scope
            self._apply(tally)
            self.summary.records = index
            self._save(index)
            self._bar.update(1)
        self._bar.set_postfix(self._postfix(), refresh=False)

    def _unchanged_or_conflict(self, row: FactRow, scope: str, tally: _Tally) -> None:
        if scope == row.scope:
            tally.counts["unchanged"] += 1
            tally.counts["valid"] += 1
        else:
            tally.errors.append(RowError(row.line, "id", "already used by a fact in another scope"))

    def _remember(self, row: FactRow, fact: FactInput) -> None:
        try:
            with self._timed("remember"):  # the model and Neo4j, one row at a time
                decision = self.memory.remember_with_decision(
                    row.scope, fact, actor=self.options.actor
                )
        except ValidationError as exc:
            self._reject(RowError(row.line, exc.field, exc.reason))
            return
        except DatabaseUnavailable:
            raise
        except FactgraphError as exc:
            self._reject(RowError(row.line, "fact", str(exc)))
            return
        self.summary.valid += 1
        kind = decision.kind
        if kind is DecisionKind.INSERT:
            self.summary.inserted += 1
        elif kind is DecisionKind.DEDUP:
            self.summary.deduplicated += 1
        elif kind is DecisionKind.SUPERSEDE:
            self.summary.superseded += 1
        elif kind is DecisionKind.MERGE:
            self.summary.merged += 1
        elif kind is DecisionKind.QUARANTINE:
            self.summary.quarantined += 1

    # -- shared ----------------------------------------------------------------------------
    @property
    def _mode(self) -> str:
        return self.memory.settings.contextual_indexing

    def _resolve(self, fact: FactInput) -> tuple[EntityLink, ...]:
        links: list[EntityLink] = []
        for role, name in (("subject", fact.subject), ("object", fact.object)):
            if name:
                resolved = self.memory.resolver.resolve(name)
                if resolved is not None:
                    links.append(EntityLink(role, resolved.canonical, resolved.name, resolved.type))
        return tuple(links)

    def _existing(self, ids: list[str]) -> dict[str, str]:
        """Which ids are taken already, and by which scope: re-runs skip those rows early."""
        if not ids:
            return {}
        with self._timed("neo4j"):
            records = self.memory.db.read("import_existing_ids", {"ids": ids})
        return {str(r["id"]): str(r["scope"]) for r in records}

    def _embed(self, prepared: Sequence[_Prepared]) -> list[chunks.Embedded]:
        """Each row's vector and the chunks of its long text, as a remember makes them
        (graph/write/chunks.py): computed, unless the file holds the vector; a vector the
        file holds from this model still gets its chunks, one a caller supplied gets none."""
        wanted = [p for p in prepared if p.needs_vector]
        tails = [p for p in prepared if not p.needs_vector and p.model_vector]
        embedder = self.memory.embedder
        with self._timed("embed"):
            made = iter(chunks.embed(embedder, [(p.index_text, p.row.fact.text) for p in wanted]))
            added = iter(
                chunks.embed(
                    embedder, [(p.index_text, p.row.fact.text) for p in tails], first=False
                )
            )
        out: list[chunks.Embedded] = []
        for p in prepared:
            if p.needs_vector:
                out.append(next(made))
            else:
                tail = next(added).chunks if p.model_vector else ()
                out.append(chunks.Embedded(list(p.row.vector or []), tail))
        return out

    def _postfix(self) -> dict[str, int]:
        s = self.summary
        return {"new": s.inserted, "dup": s.deduplicated, "bad": s.rejected}


def _link_created(
    tx: ManagedTransaction,
    rows: list[dict[str, Any]],
    nodes: dict[str, str],
    now: datetime,
    actor: str,
    stages: tuple[str, ...],
    timed: Callable[[str], AbstractContextManager[None]],
) -> None:
    """Entities, tags and audit events of the facts a batch created: one statement each.

    `nodes` maps each created fact's id to its element id in this transaction: the statements
    reach the facts by it instead of seeking the id index once per link, which halved their
    time at 100,000 facts (bench/README.md, "Where Neo4j's time goes in an import").
    """
    if "entities" in stages:
        entities: dict[tuple[str, str], dict[str, Any]] = {}
        mentioned: set[tuple[str, str, str]] = set()
        for row in rows:
            fact_id, scope = row["props"]["id"], row["props"]["scope"]
            for ent in row["entities"]:
                entry = entities.setdefault(
                    (scope, ent["canonical"]),
                    {
                        "scope": scope,
                        "canonical": ent["canonical"],
                        "type": ent["type"],
                        "names": [],
                        "mentions": [],
                    },
                )
                entry["names"].append(ent["name"])
                if (fact_id, ent["role"], ent["canonical"]) not in mentioned:
                    mentioned.add((fact_id, ent["role"], ent["canonical"]))
                    entry["mentions"].append({"node": nodes[fact_id], "role": ent["role"]})
        if mentioned:
            with timed("entities"):
                run(tx, "import_fact_entities", entities=Rows(entities.values()), now=now)
    if "terms" in stages:
        _link_terms(tx, rows, nodes, now, timed)
    if "tags" in stages:
        tags: dict[tuple[str, str], dict[str, Any]] = {}
        for row in rows:
            fact_id, scope = row["props"]["id"], row["props"]["scope"]
            for name in dict.fromkeys(row["props"].get("tags") or []):
                tag = tags.setdefault((scope, name), {"scope": scope, "name": name, "nodes": []})
                tag["nodes"].append(nodes[fact_id])
        if tags:
            with timed("tags"):
                run(tx, "import_fact_tags", tags=Rows(tags.values()))
    if "audit" in stages:
        events = [
            {
                "id": row["audit_id"],
                "fact_id": row["props"]["id"],
                "node": nodes[row["props"]["id"]],
                "scope": row["props"]["scope"],
                "reason": row["reason"],
            }
            for row in rows
        ]
        with timed("audit"):
            run(tx, "import_fact_audit", events=Rows(events), now=now, actor=actor)


def _link_terms(
    tx: ManagedTransaction,
    rows: list[dict[str, Any]],
    nodes: dict[str, str],
    now: datetime,
    timed: Callable[[str], AbstractContextManager[None]],
) -> None:
    """The terms the created facts' texts mention (graph/reading/): one statement."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        fact_id, scope = row["props"]["id"], row["props"]["scope"]
        for term in row["terms"]:
            entry = found.setdefault(
                (scope, term["canonical"]),
                {
                    "scope": scope,
                    "canonical": term["canonical"],
                    "name": term["name"],
                    "mentions": [],
                },
            )
            entry["mentions"].append(
                {"node": nodes[fact_id], "role": term["role"], "weight": term["weight"]}
            )
    with timed("terms"):
        run(
            tx,
            "import_fact_terms",
            nodes=[nodes[row["props"]["id"]] for row in rows],
            terms=Rows(found.values()),
            version=READER_VERSION,
            now=now,
        )


def _link_params(links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: link[k] for k in ("new", "old", "reason", "at")} for link in links]


def _derived_params(links: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: link[k] for k in ("new", "old")} for link in links]


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


SETTLE_AFTER = 10_000  # facts inserted; fewer leave too few segments to slow a search


def should_settle(options: ImportOptions, summary: ImportSummary) -> bool:
    """Whether the import waits for the vector index to merge: a large load, unless asked not."""
    return options.settle and not options.dry_run and summary.inserted >= SETTLE_AFTER


def run_import(memory: Memory, options: ImportOptions) -> ImportSummary:
    """Import, then leave the vector index merged (graph/bulk/settle.py) after a large load."""
    importer = Importer(memory, options)
    summary = importer.run()
    if should_settle(options, summary):
        # A resumed run without --scope did not read the rows an earlier run wrote, so it does
        # not know all their scopes: every shard in use is watched then.
        known = options.scope is not None or not summary.resumed_from
        settle(
            memory, summary, progress=options.progress, scopes=importer.scopes if known else None
        )
    return summary


def settle(
    memory: Memory,
    summary: ImportSummary,
    *,
    progress: bool,
    merge_wait: float | None = None,
    scopes: Collection[str] | None = None,
) -> None:
    """`merge_wait`: how long to wait for a merge to start; by default as long as the import
    took (graph/bulk/settle.py merge_wait_after). `--initial` passes 0: it does not wait.
    `scopes`: the scopes the import wrote, whose vector shards alone are watched and probed;
    None watches every shard that holds facts."""
    settled = settle_vector_index(
        memory.db,
        memory.settings,
        memory.embedder.dimensions,
        progress=progress,
        merge_wait=merge_wait_after(summary.seconds) if merge_wait is None else merge_wait,
        timeout=timeout_after(summary.seconds),
        labels=None if scopes is None else sorted({vector_shards.label(s) for s in scopes}),
    )
    summary.timings["vector index merged"] = round(settled.seconds, 2)
    summary.settled = settled.render()


__all__ = ["ImportOptions", "ImportSummary", "Importer", "RowError", "run_import"]
