"""Apply factgraph's constraints and indexes idempotently, and refuse a mismatched model.

The vector index is created with the embedder's dimension. An existing index with another
dimension means the model changed since the data was embedded: querying would fail or, worse,
compare vectors of different models, so start-up stops and says to run `factgraph reembed`.

Facts carry a label mirroring their status (:Active, :Quarantined, :Superseded, :Forgotten) so
that the Neo4j Browser, which styles nodes by label only, can colour them by status; facts
written before those labels existed get theirs here, once. The same goes for the vector shard
label (graph/storage/vector_shards.py): a store of an earlier version gets its sixteen shard
indexes, every
fact its label, and its single vector index is dropped once the shards hold every vector.
"""

from __future__ import annotations

import logging
import re
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from graph.errors import SchemaMismatch
from graph.storage import cypher, vector_shards
from graph.storage.db import Database

log = logging.getLogger("factgraph.schema")
_CREATES = re.compile(r"^\s*CREATE\s+(\w+\s+)?(INDEX|CONSTRAINT)", re.IGNORECASE | re.MULTILINE)
_NAMED = re.compile(
    r"^\s*(CREATE|DROP)\s+(?:\w+\s+)?(?:INDEX|CONSTRAINT)\s+(\w+)\s+IF\s+(NOT\s+)?EXISTS\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class IndexState:
    name: str
    type: str
    state: str
    population_percent: float


def vector_dimensions(db: Database) -> int | None:
    """The dimension of the facts' vector indexes; the largest when two disagree (a crash
    between dropping and recreating them), so that the check below refuses it."""
    found = [int(r["dimensions"]) for r in db.read("schema_vector_dimensions") if r["dimensions"]]
    return max(found) if found else None


def check_vector_dimensions(db: Database, dimensions: int, embedder_id: str) -> None:
    existing = vector_dimensions(db)
    if existing is not None and existing != dimensions:
        raise SchemaMismatch(
            f"The vector indexes fact_embedding_* and chunk_embedding_* have {existing} "
            f"dimensions but the embedder {embedder_id} produces {dimensions}. The embedding "
            "model changed since the facts were embedded: run `factgraph reembed` to rebuild "
            "the indexes and re-embed every fact, or set FACTGRAPH_MODEL back to the model the "
            "data was embedded with."
        )


def other_models(db: Database, embedder_id: str, *, sample: int = 10_000) -> str | None:
    """A warning when sampled facts hold vectors of another model of the same dimension.

    The dimension check cannot see a model change between two 384-dimension models (MiniLM,
    the earlier default, and e5-small-v2): searches would go on, ranking by cosines between
    two models' vectors. Start-up says so instead of refusing, since the old vectors still
    find something and re-embedding a large store takes a while.
    """
    rows = db.read("embedder_others", {"sample": sample, "same": [embedder_id, "supplied"]})
    if not rows:
        return None
    found = ", ".join(f"{r['embedder']} ({r['facts']})" for r in rows)
    return (
        f"facts embedded by another model than {embedder_id} were found ({found}, in a sample "
        f"of {sample}); search compares their vectors with {embedder_id}'s. Run `factgraph "
        "reembed` to re-embed them, or set FACTGRAPH_MODEL to the model they were embedded with"
    )


def apply_schema(
    db: Database, dimensions: int, embedder_id: str, *, progress: bool | None = None
) -> None:
    """Create what is missing and wait until every index is ONLINE.

    An index built over facts already stored can take minutes: the filtered vector index of a
    million facts upgraded from 5.26 took 6 min 45 s here. Start-up waits as long as population
    goes on (a bar on a terminal; `progress` overrides) and stops only when an index FAILED;
    it used to give up after 5 minutes, leaving a large upgraded store unable to start.
    """
    shown = sys.stderr.isatty() if progress is None else progress
    create_schema(db, dimensions, embedder_id)
    wait_for_indexes(db, progress=shown)
    label_statuses(db)
    if label_shards(db):
        wait_for_indexes(db, progress=shown)  # the labelled facts' vectors enter their shards
    drop_legacy_vector_index(db)


def create_schema(db: Database, dimensions: int, embedder_id: str) -> None:
    """Create what is missing; indexes over existing data populate in the background.

    A data write goes first (cypher/schema_runtime_upgrade.cypher): on a store upgraded from
    5.26, it moves the database to the running version, without which that version's schema
    (the filtered vector index of 2026.x) is refused.
    """
    with db._translate("schema"):
        db.driver.execute_query(
            cypher.load("schema_runtime_upgrade"),
            database_=db.name,
            bookmark_manager_=db.bookmarks,
        )
    check_vector_dimensions(db, dimensions, embedder_id)
    existing = schema_names(db)
    for _file, statement in cypher.statements("schema"):
        if not needed(statement, existing):
            continue
        params = {"dimensions": dimensions} if "$dimensions" in statement else {}
        with db._translate("schema"):
            db.driver.execute_query(
                statement,
                parameters_=params,
                database_=db.name,
                bookmark_manager_=db.bookmarks,
            )


def schema_names(db: Database) -> set[str]:
    """The names of the indexes and constraints the database holds."""
    names = {str(r["name"]) for r in db.read("schema_index_names")}
    return names | {str(r["name"]) for r in db.read("schema_constraints")}


def needed(statement: str, existing: set[str]) -> bool:
    """Whether a schema statement would change anything, judged by the name it carries.

    `CREATE ... name IF NOT EXISTS` on a name that exists, and `DROP ... name IF EXISTS` on
    one that does not, are no-ops, but each still took a schema transaction of ~100 ms: the
    63 statements cost every start-up, every command-line call and every test server 5-8 s,
    and the suite ran them hundreds of times. A statement without such a name always runs.
    """
    named = _NAMED.match(statement)
    if named is None:
        return True
    creates = named.group(1).upper() == "CREATE"
    return (named.group(2) in existing) != creates


def build_schema(db: Database, dimensions: int, embedder_id: str, *, progress: bool) -> None:
    """`create_schema` over a freshly loaded store, with one progress bar for all of it.

    Creating a uniqueness constraint blocks until its index is populated (minutes at a million
    facts), so the statements run on a thread while the bar follows every index's population.
    """
    expected = sum(1 for _f, statement in cypher.statements("schema") if _CREATES.search(statement))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="schema") as pool:
        creating = pool.submit(create_schema, db, dimensions, embedder_id)
        wait_for_indexes(db, progress=progress, until=creating, expected=expected)
        creating.result()


def wait_for_indexes(
    db: Database,
    *,
    progress: bool = True,
    poll: float = 1.0,
    until: Future[None] | None = None,
    expected: int = 0,
) -> None:
    """Wait, with a progress bar, until every index is ONLINE (after a bulk load: minutes).

    With `until`, also until that work (the statements creating the indexes) is done; the bar
    counts `expected` indexes from the start. Raises if an index FAILED, naming it.

    The first polls come quickly, then every `poll` seconds: over a small store indexes come
    online in milliseconds, and a whole second per wait added up in the test suite.
    """
    from tqdm import tqdm

    delay = min(0.02, poll)

    with tqdm(
        total=100.0,
        unit="%",
        desc="indexes",
        file=sys.stderr,
        disable=not progress,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed} {postfix}",
    ) as bar:
        while True:
            states = index_states(db)
            failed = [s.name for s in states if s.state == "FAILED"]
            if failed:
                raise SchemaMismatch(f"index population failed: {', '.join(failed)}")
            waiting = [s for s in states if s.state != "ONLINE"]
            done = sum(100.0 if s.state == "ONLINE" else s.population_percent for s in states)
            bar.n = round(min(100.0, done / max(1, len(states), expected)), 1)
            bar.set_postfix_str(", ".join(s.name for s in waiting[:3]), refresh=True)
            if until is not None and until.done() and until.exception() is not None:
                return  # the caller's result() raises it
            if not waiting and (until is None or until.done()):
                return
            time.sleep(delay)
            delay = min(poll, delay * 2)


def label_statuses(db: Database) -> int:
    """Give older facts their status label; returns how many lacked one."""
    missing = int(db.read("fact_status_label_gap")[0]["missing"])
    if missing > 0:
        with db._translate("fact_status_label_backfill"), db.session() as s:
            s.run(cypher.load("fact_status_label_backfill")).consume()
    return missing


def label_shards(db: Database) -> int:
    """Give facts without one their vector shard label; returns how many lacked one.

    A store written before shards (stop 28) has none: at the first start-up every fact gets its
    label, which puts its vector into its shard's index (about 4,000 facts a second here). Facts
    loaded by a Cypher template get theirs here or from `factgraph embed --missing`.
    """
    missing = int(db.read("vector_shard_counts")[0]["missing"])
    if missing > 0:
        log.info("giving %d facts their vector shard label", missing)
        for record in db.read("fact_shard_label_scopes"):
            scope = str(record["scope"])
            with db._translate("fact_shard_label_backfill"), db.session() as s:
                s.run(
                    cypher.load("fact_shard_label_backfill"),
                    scope=scope,
                    label=vector_shards.label(scope),
                ).consume()
    return missing


def drop_legacy_vector_index(db: Database) -> None:
    """Drop the single vector index of earlier versions once the shards hold every vector."""
    names = {str(r["name"]) for r in db.read("vector_index_names")}
    if (
        vector_shards.LEGACY_INDEX in names
        and int(db.read("vector_shard_counts")[0]["missing"]) == 0
    ):
        db.write("vector_index_drop", {"name": vector_shards.LEGACY_INDEX})


def index_states(db: Database) -> list[IndexState]:
    return [
        IndexState(
            name=str(r["name"]),
            type=str(r["type"]),
            state=str(r["state"]),
            population_percent=float(r["populationPercent"] or 0.0),
        )
        for r in db.read("schema_index_states")
    ]
