"""After a bulk import the vector index is left merged, with nothing left behind by doing so."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from graph.bulk import settle
from graph.bulk.importer import SETTLE_AFTER, ImportOptions, ImportSummary, should_settle
from graph.bulk.settle import (
    FEW_SEGMENTS,
    MAX_SETTLE_TIMEOUT,
    MERGE_WAIT,
    MIN_MERGE_WAIT,
    PROBE_EVERY,
    PROBE_SCOPE,
    SETTLE_TIMEOUT,
    MergeThreads,
    merge_wait_after,
    next_step,
    settle_vector_index,
    timeout_after,
)
from graph.platform.embedding import Embedder
from graph.platform.neo4j_local import LocalNeo4j
from graph.storage import vector_shards
from graph.storage.db import Database
from graph.storage.schema import apply_schema


@pytest.fixture
def brief_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files quiet for a second count as quiet: on an index too small to merge, how long the
    quiet is waited for changes no decision, only the test's time (5 s by default)."""
    monkeypatch.setattr(settle, "QUIET_SECONDS", 1.0)


def test_settling_the_vector_index_probes_until_no_merge_starts_and_leaves_no_trace(
    empty_store: Database, spare_neo4j: LocalNeo4j, embedder: Embedder, brief_quiet: None
) -> None:
    """On a store of its own: on the suite's shared one the segments that earlier tests or a
    benchmark left (41, which Lucene did not merge) made this wait for a merge (issue 40)."""
    db = empty_store
    apply_schema(db, embedder.dimensions, embedder.id)
    settled = settle_vector_index(
        db, spare_neo4j.settings, embedder.dimensions, timeout=MAX_SETTLE_TIMEOUT, progress=False
    )

    assert probe_facts_left(db) == 0
    # The local index folders were found and counted; a fresh index holds too few segments to
    # merge, so one quiet probe settles it, without waiting for Lucene.
    assert settled.segments_before is not None and settled.segments_before <= FEW_SEGMENTS
    assert settled.segments_after is not None and settled.segments_after <= FEW_SEGMENTS
    assert settled.probes == 1 and settled.merged and not settled.merging
    assert "vector index: merged" in settled.render()


def test_settling_the_shards_an_import_wrote_probes_only_those_and_leaves_no_trace(
    empty_store: Database, spare_neo4j: LocalNeo4j, embedder: Embedder, brief_quiet: None
) -> None:
    db = empty_store
    apply_schema(db, embedder.dimensions, embedder.id)
    label = vector_shards.label("an-imported-scope")
    settled = settle_vector_index(
        db,
        spare_neo4j.settings,
        embedder.dimensions,
        timeout=MAX_SETTLE_TIMEOUT,
        progress=False,
        labels=[label],
    )

    assert probe_facts_left(db) == 0
    assert settled.probes == 1 and settled.segments_after is not None


def probe_facts_left(db: Database) -> int:
    return int(
        db.driver.execute_query(
            "MATCH (f:Fact {scope: $scope}) RETURN count(f) AS n",
            scope=PROBE_SCOPE,
            database_=db.name,
        ).records[0]["n"]
    )


def test_a_quiet_probe_does_not_end_the_wait_while_many_segments_are_unmerged() -> None:
    # Neo4j 5.26 starts no merge for 60-90 s after an import, whatever is written meanwhile
    # (bench/segments.py); stopping at the first quiet probe left 75 segments at 100,000 facts.
    def waiting(since_probe: float) -> str:
        return next_step(
            probes=3, stirred=False, merged=False, most_segments=75, since_probe=since_probe
        )

    assert waiting(2.0) == "wait"
    assert waiting(PROBE_EVERY) == "probe"


def test_a_merge_is_followed_by_probes_until_one_starts_nothing() -> None:
    def after_merge(stirred: bool) -> str:
        return next_step(probes=5, stirred=stirred, merged=True, most_segments=11, since_probe=6)

    assert after_merge(stirred=True) == "probe"
    assert after_merge(stirred=False) == "done"


def test_an_index_with_few_segments_is_settled_after_one_quiet_probe() -> None:
    def few(probes: int) -> str:
        return next_step(
            probes=probes, stirred=False, merged=False, most_segments=FEW_SEGMENTS, since_probe=6
        )

    assert few(0) == "probe"
    assert few(1) == "done"


def test_waiting_for_a_merge_that_does_not_start_ends_after_a_bounded_time() -> None:
    # Index population (`import --initial`) leaves larger segments that Lucene did not merge
    # within 300 s of probes: the import should not sit there for nothing.
    def quiet(waited: float) -> str:
        return next_step(
            probes=9, stirred=False, merged=False, most_segments=20, since_probe=10, waited=waited
        )

    assert quiet(MERGE_WAIT - 1) == "probe"
    assert quiet(MERGE_WAIT) == "done"
    # `import --initial` does not wait at all: one quiet probe ends it.
    after_population = next_step(
        probes=1, stirred=False, merged=False, most_segments=20, since_probe=6, merge_wait=0
    )
    assert after_population == "done"


def test_a_small_import_waits_for_a_merge_no_longer_than_it_took_itself() -> None:
    # Ten thousand facts into a store whose shards already held unmerged segments took 13 s,
    # then sat 150 s waiting for a merge that never came: the wait now follows the import.
    assert merge_wait_after(13.0) == MIN_MERGE_WAIT
    assert merge_wait_after(60.0) == 60.0
    # A 100,000-fact import (about 120 s) still waits for the merge that starts 80-91 s after it.
    assert merge_wait_after(120.0) == 120.0
    assert merge_wait_after(3_600.0) == MERGE_WAIT


def _thread(proc: Path, tid: int, name: str, utime: int, stime: int = 0) -> None:
    task = proc / "4242" / "task" / str(tid)
    task.mkdir(parents=True, exist_ok=True)
    (task / "comm").write_text(name + "\n")
    # /proc/<pid>/task/<tid>/stat: utime and stime are the 14th and 15th fields.
    rest = " ".join(["S"] + ["0"] * 10 + [str(utime), str(stime)] + ["0"] * 5)
    (task / "stat").write_text(f"{tid} ({name}) {rest}\n")


def test_a_merge_thread_at_work_keeps_the_index_unsettled_though_its_files_are_quiet(
    tmp_path: Path,
) -> None:
    # A large merge rebuilds its HNSW graph in memory for minutes before writing a byte.
    _thread(tmp_path, 10, "Lucene Merge Th", 500)
    _thread(tmp_path, 11, "neo4j.BoltWorke", 100)
    threads = MergeThreads(4242, proc=tmp_path)
    assert not threads.worked()  # nothing since the first look

    _thread(tmp_path, 11, "neo4j.BoltWorke", 900)  # queries are not merges
    assert not threads.worked()

    _thread(tmp_path, 10, "Lucene Merge Th", 600)
    assert threads.worked()

    _thread(tmp_path, 12, "Lucene Merge Th", 0, 3)  # a merge that started since
    assert threads.worked()
    assert not threads.worked()  # and now all is still


def test_no_process_to_watch_never_reports_a_merge(tmp_path: Path) -> None:
    assert not MergeThreads(None).worked()
    assert not MergeThreads(999_999, proc=tmp_path).worked()


def test_settling_may_take_as_long_as_the_import_within_bounds() -> None:
    assert timeout_after(20.0) == SETTLE_TIMEOUT
    assert timeout_after(1_175.0) == 1_175.0  # a million facts
    assert timeout_after(10_000.0) == MAX_SETTLE_TIMEOUT


def test_a_large_import_settles_unless_asked_not_to(tmp_path: Path) -> None:
    large = ImportSummary(file="f.jsonl", mode="fast", inserted=SETTLE_AFTER)
    small = ImportSummary(file="f.jsonl", mode="fast", inserted=SETTLE_AFTER - 1)
    options = ImportOptions(path=tmp_path / "f.jsonl", fast=True)
    assert should_settle(options, large)
    assert not should_settle(options, small)
    assert not should_settle(replace(options, settle=False), large)  # `import --no-settle`
    assert not should_settle(replace(options, dry_run=True), large)
