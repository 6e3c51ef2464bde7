"""The operator's batch commands: import, export, embed --missing, reembed, mark-standing,
read-texts, stats, drop-scope.

Registered on `factgraph.cli`'s parser. Heavy imports (the driver, the model) happen inside the
handlers so `factgraph --help` stays instant. Results go to standard output (a summary, or
JSON with --json), progress bars and errors to standard error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from graph.config import Settings

Handler = Callable[[argparse.Namespace, Settings], int]

_IMPORT_EPILOG = """\
rows: JSON Lines (one object per line) or CSV with a header. Fields: text (required), id,
scope, subject, predicate, object, tags (CSV: "a;b"), importance (0-10), partition, source,
metadata (JSON object), session_id, turn, valid_from, valid_to, expires_at, recorded_at
(ISO-8601), embedding (list of numbers; computed when absent). A file written by
`factgraph export` starts with a header line naming its format and version, and also carries
each fact's state (status, strength, supersedes, entities, standing, ...); restore it with
--fast. The format: docs/batch-import.md, "The export format".

Re-running the same command adds nothing new; an interrupted import continues where it stopped.
Exit status: 0 every row imported (or, with --dry-run, valid); 1 a row was rejected (the summary
names each line; --allow-rejects accepts the loss and exits 0) or --max-errors stopped the run
(fix the file or raise the limit and re-run); 2 bad arguments, a file this version cannot read,
or Neo4j unavailable.

examples:
  factgraph import facts.jsonl --scope acme
  factgraph import facts.csv --scope acme --fast --batch-size 2000
  factgraph import facts.jsonl --scope acme --dry-run
  factgraph import facts.jsonl --scope acme --initial    # empty database: neo4j-admin import
  factgraph export --scope acme --out acme.jsonl && factgraph import acme.jsonl --fast
"""


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from graph.bulk.importer import ImportOptions, run_import
    from graph.bulk.rows import detect_format
    from graph.memory import Memory
    from graph.platform.neo4j_start import ensure_neo4j

    options = ImportOptions(
        path=args.file,
        scope=args.scope,
        format=args.format,
        batch_size=args.batch_size,
        max_errors=args.max_errors,
        dry_run=args.dry_run,
        fast=args.fast or args.initial,
        progress=not args.no_progress,
        restart=args.restart,
        settle=not args.no_settle,
        allow_rejects=args.allow_rejects,
    )
    if not args.file.is_file():
        raise ValueError(f"{args.file}: no such file")
    detect_format(args.file, args.format)
    if args.initial and not args.dry_run:
        from graph.bulk.initial import run_initial_import

        summary = run_initial_import(settings, options)
        print(json.dumps(summary.as_json(), indent=2) if args.json else summary.render())
        return 1 if summary.failed else 0
    ensure_neo4j(settings)
    with Memory.connect(settings, apply=not args.dry_run) as memory:
        summary = run_import(memory, options)
    if args.json:
        print(json.dumps(summary.as_json(), indent=2))
    else:
        print(summary.render())
    return 1 if summary.failed else 0


def cmd_export(args: argparse.Namespace, settings: Settings) -> int:
    from graph.bulk.exporter import export_to
    from graph.platform.neo4j_start import ensure_neo4j
    from graph.storage.db import Database

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        summary = export_to(
            db,
            args.out,
            scopes=args.scope,
            embeddings=not args.no_embeddings,
            progress=not args.no_progress,
        )
    finally:
        db.close()
    print(summary.render(), file=sys.stderr)
    return 0


def cmd_embed(args: argparse.Namespace, settings: Settings) -> int:
    from graph.bulk.embedjobs import embed_missing
    from graph.memory import Memory
    from graph.platform.neo4j_start import ensure_neo4j

    ensure_neo4j(settings)
    with Memory.connect(settings) as memory:
        summary = embed_missing(
            memory, scopes=args.scope, batch_size=args.batch_size, progress=not args.no_progress
        )
    print(summary.render())
    return 0


def cmd_reembed(args: argparse.Namespace, settings: Settings) -> int:
    from graph.bulk.embedjobs import reembed
    from graph.platform.embedding import Embedder
    from graph.platform.neo4j_start import ensure_neo4j
    from graph.storage.db import Database

    ensure_neo4j(settings)
    embedder = Embedder(settings)
    db = Database(settings)
    try:
        summary = reembed(
            db,
            embedder,
            settings,
            scopes=args.scope,
            batch_size=args.batch_size,
            all_facts=args.all,
            progress=not args.no_progress,
        )
    finally:
        db.close()
    print(summary.render())
    return 0


def cmd_mark_standing(args: argparse.Namespace, settings: Settings) -> int:
    from graph.bulk.standing import mark_standing
    from graph.platform.neo4j_start import ensure_neo4j
    from graph.storage.db import Database

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        summary = mark_standing(
            db, scopes=args.scope, batch_size=args.batch_size, progress=not args.no_progress
        )
    finally:
        db.close()
    print(summary.render())
    return 0


def cmd_read_texts(args: argparse.Namespace, settings: Settings) -> int:
    from graph.bulk.reading import read_texts
    from graph.platform.neo4j_start import ensure_neo4j
    from graph.storage.db import Database
    from graph.write.entities import DefaultEntityResolver

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        db.write("reading_schema")
        summary = read_texts(
            db,
            DefaultEntityResolver(),
            scopes=args.scope,
            batch_size=args.batch_size,
            every=args.all,
            progress=not args.no_progress,
        )
    finally:
        db.close()
    print(summary.render())
    return 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    from graph.bulk.stats import collect
    from graph.platform.neo4j_start import ensure_neo4j
    from graph.storage.db import Database

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        stats = collect(db, args.scope)
    finally:
        db.close()
    print(
        json.dumps(stats.as_json(), indent=2) if args.json else stats.render(indexes=args.indexes)
    )
    return 0


def cmd_drop_scope(args: argparse.Namespace, settings: Settings) -> int:
    """Erase a scope, to start it afresh (the quickstart run twice supersedes its own facts).

    Unlike forget and purge, nothing is kept: no history, no audit trail. Without --yes it
    only says what it would erase.
    """
    from graph.bulk.autocommit import delete_scope
    from graph.bulk.stats import collect
    from graph.platform.neo4j_start import ensure_neo4j
    from graph.storage.db import Database

    ensure_neo4j(settings)
    db = Database(settings)
    try:
        held = collect(db, [args.scope]).facts.get(args.scope, {})
        what = f"scope {args.scope!r}: {sum(held.values())} facts"
        if not args.yes:
            print(f"would erase {what}, with their history and audit trail; add --yes to do it")
            return 1
        delete_scope(db, args.scope)
    finally:
        db.close()
    print(f"erased {what}")
    return 0


def _positive(raw: str) -> int:
    value = int(raw)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative(raw: str) -> int:
    value = int(raw)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], handlers: dict[str, Handler]
) -> None:
    scopes_help = "only this scope (repeat for several; default: all scopes)"
    raw = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser(
        "import",
        help="load facts from JSON Lines or CSV (idempotent, resumable)",
        description="Load facts from a JSON Lines or CSV file into Neo4j, in batches, "
        "with a progress bar and a closing summary.",
        epilog=_IMPORT_EPILOG,
        formatter_class=raw,
    )
    p.add_argument("file", type=Path, help="a .jsonl or .csv file")
    p.add_argument("--scope", help="the scope to load into (overrides a scope column)")
    p.add_argument("--format", choices=["jsonl", "csv"], help="default: from the file name")
    p.add_argument(
        "--batch-size", type=_positive, default=500, help="rows per transaction (default 500)"
    )
    p.add_argument(
        "--max-errors",
        type=_non_negative,
        default=100,
        help="stop after this many rejected rows (default 100)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="validate every row, write nothing; exits 1 if a row would be rejected",
    )
    p.add_argument(
        "--allow-rejects",
        action="store_true",
        help="exit 0 even when rows are rejected (they are still listed, and not imported)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--fast",
        dest="fast",
        action="store_true",
        help="trusted bulk load: exact dedup only, UNWIND batches; restores exported state",
    )
    mode.add_argument(
        "--pipeline",
        dest="fast",
        action="store_false",
        help="each row through the full write pipeline, like an agent's write (default)",
    )
    mode.add_argument(
        "--initial",
        action="store_true",
        help="first load into an EMPTY database through neo4j-admin's offline importer "
        "(the project's own Neo4j only; stops and restarts it); the graph --fast makes",
    )
    p.add_argument("--restart", action="store_true", help="ignore an interrupted run's checkpoint")
    p.add_argument(
        "--no-settle",
        action="store_true",
        help="return without waiting for Lucene to merge the vector index after a large import "
        "(vector search stays slower until the merges are done)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(fast=False)
    handlers["import"] = cmd_import

    p = sub.add_parser(
        "export",
        help="write facts, links and entities as JSON Lines that import restores",
        description="Write a header line (format and version), every fact (oldest first, "
        "with state, vector, entity links in every role, supersede and derived-from links, "
        "standing marks) and then every entity as JSON Lines; "
        "`factgraph import FILE --fast` restores them exactly.",
        epilog="examples:\n  factgraph export --scope acme --out acme.jsonl\n"
        "  factgraph export > everything.jsonl",
        formatter_class=raw,
    )
    p.add_argument("--scope", action="append", help=scopes_help)
    p.add_argument("--out", type=Path, help="file to write (default: standard output)")
    p.add_argument(
        "--no-embeddings", action="store_true", help="leave vectors out (import recomputes them)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    handlers["export"] = cmd_export

    p = sub.add_parser(
        "embed",
        help="complete facts loaded by Cypher: vectors, dedup, entity links",
        description="After a batch Cypher job (cypher/import_template_*.cypher), compute what "
        "Cypher cannot: content hash and exact dedup, contextual index text, vectors, "
        "entity links.",
        epilog="example:\n  factgraph embed --missing --scope acme",
        formatter_class=raw,
    )
    p.add_argument(
        "--missing", action="store_true", required=True, help="facts that have no vector yet"
    )
    p.add_argument("--scope", action="append", help=scopes_help)
    p.add_argument("--batch-size", type=_positive, default=256, help="facts per batch")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    handlers["embed"] = cmd_embed

    p = sub.add_parser(
        "reembed",
        help="after a model change: rebuild the vector index, re-embed every fact",
        description="Bring every vector to the configured model (FACTGRAPH_MODEL): rebuild "
        "the vector index at the model's dimension if it differs, then re-embed, in batches, "
        "every fact embedded by another model. Interrupt it any time; run it again to go on.",
        epilog="example:\n  FACTGRAPH_MODEL=BAAI/bge-small-en-v1.5 factgraph reembed",
        formatter_class=raw,
    )
    p.add_argument("--scope", action="append", help=scopes_help)
    p.add_argument("--batch-size", type=_positive, default=256, help="facts per batch")
    p.add_argument(
        "--all", action="store_true", help="re-embed every fact, even those of the same model"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    handlers["reembed"] = cmd_reembed

    p = sub.add_parser(
        "mark-standing",
        help="mark the standing instructions and preferences among facts already stored",
        description="Re-read every stored fact with the standing-statement patterns and set "
        "its `standing` kind and :Standing label to what they say: for facts written before "
        "factgraph recognised standing statements, loaded by a batch Cypher job, or marked by "
        "older patterns. Revocations are not replayed. Safe to interrupt and run again.",
        epilog="example:\n  factgraph mark-standing --scope acme",
        formatter_class=raw,
    )
    p.add_argument("--scope", action="append", help=scopes_help)
    p.add_argument("--batch-size", type=_positive, default=1000, help="facts per batch")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    handlers["mark-standing"] = cmd_mark_standing

    p = sub.add_parser(
        "read-texts",
        help="link facts already stored to the names, topics and identifiers their texts mention",
        description="Read every stored fact not read by this version of the reader "
        "(graph/reading/) and link it to one :Term node per name, topic and identifier its "
        "text mentions (MENTIONS with a role and a weight): for facts written before "
        "factgraph read text. Safe to interrupt and run again; a second run reads nothing.",
        epilog="example:\n  factgraph read-texts --scope acme",
        formatter_class=raw,
    )
    p.add_argument("--scope", action="append", help=scopes_help)
    p.add_argument("--batch-size", type=_positive, default=500, help="facts per batch")
    p.add_argument("--all", action="store_true", help="read every fact again")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    handlers["read-texts"] = cmd_read_texts

    p = sub.add_parser(
        "stats",
        help="facts per scope and status, entities, vectors, index states",
        description="What the database holds: facts per scope and status, entities and tags "
        "per scope, vectors per model, and how many indexes are in each state (--indexes: "
        "every index's state; an index that is not ONLINE is always named).",
    )
    p.add_argument("--scope", action="append", help=scopes_help)
    p.add_argument("--indexes", action="store_true", help="list every index and its state")
    p.add_argument("--json", action="store_true", help="print as JSON")
    handlers["stats"] = cmd_stats

    p = sub.add_parser(
        "drop-scope",
        help="erase a scope and everything in it (start it afresh)",
        description="Delete every fact, entity, tag, context and audit event of one scope, in "
        "bounded transactions. Nothing is kept (forget and purge keep history or an audit "
        "line): use it to start a scope afresh, e.g. the quickstart's. Without --yes it only "
        "says what it would erase.",
        epilog="example:\n  factgraph drop-scope quickstart --yes",
        formatter_class=raw,
    )
    p.add_argument("scope", help="the scope to erase")
    p.add_argument("--yes", action="store_true", help="erase it (without: only say what)")
    handlers["drop-scope"] = cmd_drop_scope
