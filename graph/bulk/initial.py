"""`factgraph import --initial`: a first load into an empty database through `neo4j-admin`.

Neo4j's offline importer writes the store files directly, millions of nodes a minute, where
transactions pay for every index at every commit. It only creates a database, so this path is
for an empty one and refuses anything else. The rows go through the fast path's own parsing,
validation, exact dedup, entity resolution and property map (`Importer`), and the graph that
comes out is the one `import --fast` makes: the same facts, status labels, entities with their
aliases folded in file order, tags, audit events, supersede links and passages. Then the
server starts, the schema is applied, and the indexes are populated in bulk (with progress).

The terms each text mentions (graph/reading/) are linked once the server is up (`read_texts`).

Files: CSV with typed headers (graph/bulk/offline.py writes them) in a temporary folder beside
the database, deleted afterwards.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from graph.bulk.importer import (
    DERIVED,
    Importer,
    ImportOptions,
    ImportSummary,
    Item,
    RowError,
    _Tally,
    settle,
    should_settle,
)
from graph.bulk.offline import CsvGroups, entity_key
from graph.bulk.reading import read_texts
from graph.bulk.spec import EntityRow, FactRow
from graph.config import Settings
from graph.errors import FactgraphError
from graph.memory import Memory
from graph.platform.neo4j_local import LocalNeo4j
from graph.storage import cypher
from graph.storage.schema import build_schema
from graph.write import passages

_ADMIN_ENTRY_POINT = "org.neo4j.cli.AdminTool"
_STATUS_LABELS = {
    "active": "Active",
    "quarantined": "Quarantined",
    "superseded": "Superseded",
    "forgotten": "Forgotten",
}


class NotEmpty(FactgraphError):
    """The database already holds nodes: an offline import would replace them."""


@dataclass
class _Entity:
    scope: str
    canonical: str
    name: str
    type: str | None
    aliases: list[str] | None
    lexical_text: str
    props: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Turn:
    id: str
    session_id: str
    turn: int
    recorded_at: str
    status: str
    text: str


class InitialImporter(Importer):
    """The fast path's parsing and preparation, writing CSV files instead of transactions."""

    def __init__(self, memory: Memory, options: ImportOptions, folder: Path) -> None:
        super().__init__(memory, _fresh(options))
        self.mode = "initial"
        self.summary.mode = "initial"
        self.files = CsvGroups(folder, array_delimiter=ARRAY_DELIMITER)
        self._live: dict[tuple[str, str], str] = {}
        self._scopes: dict[str, str] = {}
        self._entities: dict[tuple[str, str], _Entity] = {}
        self._tags: set[tuple[str, str]] = set()
        self._turns: dict[tuple[str, str], list[_Turn]] = {}
        self._links: list[dict[str, Any]] = []
        self._restores: list[EntityRow] = []
        self._now = memory.clock()

    # -- the rows --------------------------------------------------------------------------
    def _write_fast(self, batch: list[Item]) -> None:
        facts: list[FactRow] = []
        tally = _Tally()
        for _, item in batch:
            if isinstance(item, RowError):
                tally.errors.append(item)
            elif isinstance(item, EntityRow):
                self._restores.append(item)
            elif self._first_sight(item, tally):
                facts.append(item)
        self._apply(tally)
        now = self._now
        prepared = [self._prepare(row, now) for row in facts]
        for p, made in zip(prepared, self._embed(prepared), strict=True):
            if p.needs_vector:
                self.summary.embedded += 1
            params = self._params(p, made.vector, now, made.chunks)
            self._write_fact(p.row, params)
        self.summary.records = batch[-1][0]
        self._bar.update(len(batch))
        self._bar.set_postfix(self._postfix(), refresh=False)

    def _write_fact(self, row: FactRow, params: dict[str, Any]) -> None:
        props: dict[str, Any] = dict(params["props"])
        # The terms its text mentions are linked once the server is up (`read_texts`): the
        # fact is marked read then.
        props.pop("read_v", None)
        live = props.get("live_hash")
        if live is not None:
            key = (row.scope, str(live))
            if key in self._live:  # exact dedup: the first live fact with this content wins
                self.summary.deduplicated += 1
                self.summary.valid += 1
                return
            self._live[key] = row.id
        self.summary.inserted += 1
        self.summary.valid += 1
        fact_id, scope = row.id, row.scope
        self._scopes[fact_id] = scope
        labels = ["Fact", str(params["shard_label"])] + (
            [_STATUS_LABELS[props["status"]]] if props["status"] in _STATUS_LABELS else []
        )
        if props.get("standing") is not None:  # as cypher/import_facts.cypher labels it
            labels.append("Standing")
        self.files.node("Fact", "Fact", fact_id, labels, props, params["times"])
        for ent in params["entities"]:
            self._mention(fact_id, scope, ent)
        for tag in dict.fromkeys(props.get("tags") or []):
            self._tags.add((scope, tag))
            self.files.relationship("TAGGED", "Fact", fact_id, "Tag", entity_key(scope, tag))
        audit_id = str(params["audit_id"])
        self.files.node(
            "AuditEvent",
            "AuditEvent",
            audit_id,
            ["AuditEvent"],
            {
                "scope": scope,
                "kind": "insert",
                "actor": self.options.actor,
                "reason": params["reason"],
                "fact_id": fact_id,
            },
            {"at": self._now.isoformat()},
        )
        self.files.relationship("CONCERNS", "AuditEvent", audit_id, "Fact", fact_id)
        # The chunks of a long text, as cypher/chunks_write.cypher writes them.
        for chunk in params["chunks"]["chunks"]:
            chunk_key = f"{fact_id}\x1f{chunk['ord']}"
            labels = ["Chunk", str(params["chunks"]["shard_label"])]
            values = {"fact_id": fact_id, "scope": scope, **chunk}
            self.files.node("Chunk", "Chunk", chunk_key, labels, values, {}, stored_id=False)
            self.files.relationship("CHUNK_OF", "Chunk", chunk_key, "Fact", fact_id)
        for link in row.supersedes:
            self._links.append(
                {
                    "new": fact_id,
                    "old": link.old_id,
                    "reason": link.reason,
                    "at": link.at,
                    "line": row.line,
                }
            )
        for source in row.derived_from:
            self._links.append({"kind": DERIVED, "new": fact_id, "old": source, "line": row.line})
        session, turn = props.get("session_id"), props.get("turn")
        if session is not None and turn is not None:
            self._turns.setdefault((scope, str(session)), []).append(
                _Turn(
                    fact_id,
                    str(session),
                    int(turn),
                    params["times"].get("recorded_at", ""),
                    str(props["status"]),
                    str(props["text"]),
                )
            )

    def _mention(self, fact_id: str, scope: str, ent: dict[str, Any]) -> None:
        """Fold one mention into its entity exactly as cypher/import_fact_entities.cypher does."""
        key = (scope, str(ent["canonical"]))
        name = str(ent["name"])
        entity = self._entities.get(key)
        if entity is None:
            entity = _Entity(scope, key[1], name, ent["type"], [], name.lower())
            self._entities[key] = entity
        before = entity.aliases
        if before is not None:
            if name != entity.name and name not in before:
                entity.aliases = [*before, name]
            entity.lexical_text = "\n".join([entity.name, *before, name]).lower()
        self.files.relationship(
            "MENTIONS", "Fact", fact_id, "Entity", entity_key(*key), {"role": ent["role"]}
        )

    # -- after the last row ------------------------------------------------------------------
    def finish(self) -> None:
        """Entities, tags, supersede links and passages: what needs every row first."""
        for restore in self._restores:
            key = (restore.scope, restore.canonical)
            entity = self._entities.get(key)
            if entity is None:
                entity = _Entity(restore.scope, restore.canonical, "", None, None, "")
                entity.props = {"name": None, "aliases": None, "type": None, "lexical_text": None}
                self._entities[key] = entity
            entity.props.update(restore.props)
            self.summary.entities_restored += 1
        for entity in self._entities.values():
            props: dict[str, Any] = {
                "scope": entity.scope,
                "canonical": entity.canonical,
                "name": entity.name,
                "aliases": entity.aliases,
                "type": entity.type,
                "lexical_text": entity.lexical_text,
            }
            props.update(entity.props)
            # As cypher/import_entities.cypher leaves it: created now, unless the export says when.
            times = {"created_at": self._now.isoformat()}
            created = props.get("created_at")
            if isinstance(created, datetime):
                times = {"created_at": props.pop("created_at").isoformat()}
            elif created is not None:
                times = {}
            self.files.node(
                "Entity",
                "Entity",
                entity_key(entity.scope, entity.canonical),
                ["Entity"],
                props,
                times,
                stored_id=False,
            )
        for scope, name in self._tags:
            self.files.node(
                "Tag",
                "Tag",
                entity_key(scope, name),
                ["Tag"],
                {"scope": scope, "name": name},
                {},
                stored_id=False,
            )
        for link in self._links:
            new_scope, old_scope = self._scopes.get(link["new"]), self._scopes.get(link["old"])
            if link.get("kind") == DERIVED:
                if new_scope is not None and new_scope == old_scope:
                    new, old = link["new"], link["old"]
                    self.files.relationship("DERIVED_FROM", "Fact", new, "Fact", old)
                else:
                    self.summary.links_missing += 1
                    self.summary.warnings.append(
                        f"line {link['line']}: derived_from: no fact {link['old']!r} in the scope"
                    )
                continue
            if new_scope is not None and new_scope == old_scope:
                at = link["at"]
                self.files.relationship(
                    "SUPERSEDES",
                    "Fact",
                    link["new"],
                    "Fact",
                    link["old"],
                    {"reason": link["reason"]},
                    {"at": at.isoformat()} if at is not None else {},
                )
                self.summary.superseded += 1
            else:
                self.summary.links_missing += 1
                self.summary.warnings.append(
                    f"line {link['line']}: supersedes: no fact {link['old']!r} in the scope"
                )
        self.files.close_nodes()
        self.files.add_column("Fact", "passage_text", self._passages())
        self.files.close()

    def _passages(self) -> dict[str, str]:
        """Every turn's passage, as cypher/fact_passages_refresh.cypher builds it."""
        radius = passages.PASSAGE_TURNS
        out: dict[str, str] = {}
        for turns in self._turns.values():
            turns.sort(key=lambda t: (t.turn, t.recorded_at))
            for i, f in enumerate(turns):
                lo, hi = i, i
                while lo > 0 and turns[lo - 1].turn >= f.turn - radius:
                    lo -= 1
                while hi + 1 < len(turns) and turns[hi + 1].turn <= f.turn + radius:
                    hi += 1
                around = [
                    n for n in turns[lo : hi + 1] if n.turn != f.turn and n.status == "active"
                ]
                parts = [n.text for n in around if n.turn < f.turn] + [f.text]
                parts += [n.text for n in around if n.turn > f.turn]
                out[f.id] = " ".join(parts)
        return out


ARRAY_DELIMITER = "\x1f"  # never inside a tag or an alias (control characters are refused)


def _fresh(options: ImportOptions) -> ImportOptions:
    """Fast-path parsing; never a checkpoint (a failed initial load starts again from scratch)."""
    return replace(options, fast=True, restart=True, dry_run=False)


def database_node_count(memory: Memory) -> int:
    records, _, _ = memory.db.driver.execute_query(
        cypher.load("database_node_count"),
        database_=memory.db.name,
        bookmark_manager_=memory.db.bookmarks,
    )
    return int(records[0]["n"])


def run_initial_import(settings: Settings, options: ImportOptions) -> ImportSummary:
    """Refuse a non-empty database, write the CSV files, import them offline, index, report."""
    if not settings.uses_local_neo4j:
        raise ValueError(
            "--initial runs Neo4j's offline importer on the project's own Neo4j; with NEO4J_URI "
            "set, use `factgraph import --fast` (or neo4j-admin on that server yourself)"
        )
    started = time.perf_counter()
    local = LocalNeo4j(settings)
    local.start()
    with Memory.connect(settings, apply=False) as memory:
        nodes = database_node_count(memory)
        if nodes:
            raise NotEmpty(
                f"--initial loads into an empty database only, and {memory.db.name!r} holds "
                f"{nodes} nodes: use `factgraph import --fast` to add to it"
            )
        folder = Path(tempfile.mkdtemp(prefix="factgraph-initial-", dir=local.home))
        try:
            importer = InitialImporter(memory, options, folder)
            summary = importer.run()
            if summary.aborted:
                return summary
            importer.finish()
            timings = dict(summary.timings)
            memory.db.close()
            local.stop()
            phase = time.perf_counter()
            _admin_import(local, settings.neo4j_database, importer.files.arguments())
            timings["neo4j-admin import"] = time.perf_counter() - phase
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    local.start()
    phase = time.perf_counter()
    with Memory.connect(settings, apply=False) as memory:
        build_schema(
            memory.db, memory.embedder.dimensions, memory.embedder.id, progress=options.progress
        )
        timings["indexes online"] = time.perf_counter() - phase
        _set_empty_lists(memory, importer.files.empty_lists)
        phase = time.perf_counter()
        read_texts(memory.db, memory.resolver, scopes=None, progress=options.progress)
        timings["terms read"] = time.perf_counter() - phase
        # Index population leaves larger segments that probes did not get merged in 300 s
        # (graph/bulk/settle.py MERGE_WAIT): one probe, no wait for a merge. A small load, as
        # after `import --fast`, has too few segments to settle: it spent 11 s on 24 facts.
        if should_settle(options, summary):
            settle(memory, summary, progress=options.progress, merge_wait=0.0)
    summary.seconds = round(time.perf_counter() - started, 3)
    summary.timings = {k: round(v, 2) for k, v in {**timings, **summary.timings}.items()}
    return summary


def _set_empty_lists(memory: Memory, empty: list[tuple[str, dict[str, Any], str]]) -> None:
    """Lists that were empty (`tags: []`, `aliases: []`): a CSV header cannot type them."""
    for group, query in (
        ("Fact", "import_initial_fact_lists"),
        ("Entity", "import_initial_entity_lists"),
    ):
        rows = [{**match, "key": key} for kind, match, key in empty if kind == group]
        for start in range(0, len(rows), 10_000):
            memory.db.write(query, {"rows": rows[start : start + 10_000]})


def _admin_import(local: LocalNeo4j, database: str, files: list[str]) -> None:
    java = local.java()  # the server's own: a calendar version's neo4j-admin needs Java 21+
    cmd = [
        java,
        "-Xmx1g",
        *local.jit_options(),  # a test run's small load: the first tier only
        *local.neo_version.jvm_options,
        "-cp",
        f"{local.lib_dir}/*",
        _ADMIN_ENTRY_POINT,
        "database",
        "import",
        "full",
        database,
        "--overwrite-destination=true",
        "--array-delimiter=U+001F",
        "--multiline-fields=true",
        f"--report-file={local.logs_dir / 'import.report'}",
        *files,
    ]
    env = {"NEO4J_HOME": str(local.home), "NEO4J_CONF": str(local.conf_dir), "PATH": _path()}
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False, cwd=local.home)
    if proc.returncode != 0:
        raise FactgraphError(
            f"neo4j-admin database import failed ({proc.returncode}):\n"
            + "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
        )
    print(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "", file=sys.stderr)


def _path() -> str:
    return os.environ.get("PATH", "/usr/bin:/bin")


__all__ = ["InitialImporter", "NotEmpty", "run_initial_import"]
