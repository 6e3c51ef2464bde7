"""The background consolidator: what a fact gains after it is written, and the queue behind it.

Writes queue their facts in Neo4j; the consolidator takes them off in order, adds resolved
dates to the index text (never the text), links facts to the known entities they name, retires
expired facts, and records each step in the audit trail. A killed worker loses nothing and
does nothing twice.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graph.bulk.importer import ImportOptions, run_import
from graph.config import ConsolidationSettings, Settings
from graph.consolidation import BackgroundConsolidator, Consolidator, temporal, worker_of
from graph.consolidation.consolidator import QueuedScope
from graph.consolidation.worker import _running
from graph.memory import Memory
from graph.observability import metrics
from graph.observability.health import health_report
from graph.platform.embedding import Embedder
from graph.storage.db import Database
from graph.write.facts import FactStatus
from tests.cli_helpers import FACTGRAPH, cli_env, factgraph

SAID_ON = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday

ALL_ON = ConsolidationSettings(time=True, mentions=True, expiry="forget")


def consolidator(memory: Memory, **changes: Any) -> Consolidator:
    return Consolidator(memory, dataclasses.replace(ALL_ON, **changes))


def stored(db: Database, scope: str, fact_id: str) -> dict[str, Any]:
    with db.session(read=True) as session:
        record = session.run(
            "MATCH (f:Fact {id: $id}) WHERE f.scope = $scope "
            "RETURN f {.text, .index_text, .embedder, embedding: f.embedding,"
            " queued: f.consolidation_queued_at IS NOT NULL} AS f",
            id=fact_id,
            scope=scope,
        ).single()
    assert record is not None
    return dict(record["f"])


def audit_kinds(memory: Memory, scope: str, fact_id: str) -> list[str]:
    return [e.kind for e in memory.audit_trail(scope, fact_id)]


# -- the time enricher, as rules --------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("I went to the support group yesterday", "yesterday = 7 May 2023"),
        ("We talked last night", "last night = 7 May 2023"),
        ("I'm painting today", "today = 8 May 2023"),
        ("the day before yesterday was rough", "the day before yesterday = 6 May 2023"),
        ("I ran a charity race last week", "last week = the week of 1 May 2023"),
        ("We're moving next month", "next month = June 2023"),
        ("I adopted him two years ago", "two years ago = 2021"),
        ("It opened 3 days ago", "3 days ago = 5 May 2023"),
        ("a few weeks ago we camped", "a few weeks ago = the week of 17 April 2023"),
        ("the concert is in 2 weeks", "in 2 weeks = the week of 22 May 2023"),
        ("I saw her last Friday", "last friday = 5 May 2023"),
        ("See you next Tuesday", "next tuesday = 9 May 2023"),
        ("We hiked on Saturday", "on saturday = 6 May 2023"),
        ("last weekend was fun", "last weekend = the weekend of 6 May 2023"),
        ("last year I started", "last year = 2022"),
    ],
)
def test_relative_time_expressions_resolve_against_the_time_they_were_said(
    text: str, note: str
) -> None:
    assert temporal.resolve(text, SAID_ON) == [note]


def test_text_without_relative_time_gains_no_notes() -> None:
    assert temporal.resolve("Caroline likes painting sunsets in May 2023", SAID_ON) == []
    assert temporal.resolve("She visits on Fridays", date(2023, 5, 8)) == []


# -- the queue ----------------------------------------------------------------------------------
def test_a_remembered_fact_is_queued_and_the_consolidator_resolves_its_dates(
    memory: Memory, scope: str
) -> None:
    fact = memory.remember(
        scope,
        {
            "text": "Caroline: I went to a LGBTQ support group yesterday",
            "subject": "Caroline",
            "valid_from": SAID_ON.isoformat(),
        },
    )
    work = consolidator(memory)
    assert work.status(scope).queued == 1
    assert stored(memory.db, scope, fact.id)["queued"]

    summary = work.run(scope)

    assert summary.facts == 1
    after = stored(memory.db, scope, fact.id)
    assert after["text"] == "Caroline: I went to a LGBTQ support group yesterday"
    assert after["index_text"].endswith("support group yesterday [yesterday = 7 May 2023]")
    assert not after["queued"]
    assert work.status(scope).queued == 0
    assert audit_kinds(memory, scope, fact.id) == ["insert", "consolidate"]
    # The index text is what search reads: the resolved date now finds the turn.
    hits = memory.search(scope, "7 May 2023", mode="fulltext", track_access=False).hits
    assert [h.fact.id for h in hits] == [fact.id]


def test_the_new_index_text_is_embedded_again_but_a_callers_own_vector_is_kept(
    memory: Memory, scope: str, embedder: Embedder
) -> None:
    modelled = memory.remember(scope, {"text": "I moved here last year", "valid_from": SAID_ON})
    supplied = memory.remember(
        scope,
        {
            "text": "We met last month",
            "valid_from": SAID_ON,
            "embedding": [1.0] + [0.0] * (embedder.dimensions - 1),
        },
    )
    before = stored(memory.db, scope, modelled.id)["embedding"]
    consolidator(memory).run(scope)
    after = stored(memory.db, scope, modelled.id)
    assert after["embedding"] != before
    expected = embedder.embed_one(after["index_text"])
    assert max(abs(a - b) for a, b in zip(after["embedding"], expected, strict=True)) < 1e-3
    kept = stored(memory.db, scope, supplied.id)
    assert kept["index_text"].endswith("[last month = April 2023]")
    assert kept["embedding"][0] == pytest.approx(1.0)


def test_a_rerun_is_idempotent_and_a_requeued_scope_is_recomputed_not_stacked(
    memory: Memory, scope: str
) -> None:
    fact = memory.remember(scope, {"text": "I ran a race last week", "valid_from": SAID_ON})
    work = consolidator(memory)
    work.run(scope)
    first = stored(memory.db, scope, fact.id)["index_text"]

    assert work.run(scope).facts == 0  # nothing queued: nothing done
    assert work.requeue(scope) == 1
    assert work.run(scope).facts == 1

    assert stored(memory.db, scope, fact.id)["index_text"] == first
    assert first.count("[last week = the week of 1 May 2023]") == 1
    assert audit_kinds(memory, scope, fact.id) == ["insert", "consolidate", "consolidate"]
    # Turned off, the enricher's additions go at the next consolidation.
    consolidator(memory, time=False).requeue(scope)
    consolidator(memory, time=False).run(scope)
    assert "[last week" not in stored(memory.db, scope, fact.id)["index_text"]


def test_each_scope_is_worked_through_in_the_order_its_facts_were_queued(
    memory: Memory, scope: str
) -> None:
    ids = [memory.remember(scope, {"text": f"note number {n} yesterday"}).id for n in range(5)]
    work = consolidator(memory)
    assert work.run_batch(scope, limit=2) == 2
    queued = [i for i in ids if stored(memory.db, scope, i)["queued"]]
    assert queued == ids[2:]


def test_bulk_import_queues_every_fact_it_creates(
    memory: Memory, scope: str, tmp_path: Path
) -> None:
    path = tmp_path / "facts.jsonl"
    rows = [
        {"text": f"turn {n}: we went hiking yesterday", "valid_from": SAID_ON.isoformat()}
        for n in range(7)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run_import(memory, ImportOptions(path=path, scope=scope, fast=True, progress=False))
    work = consolidator(memory)
    assert work.status(scope).queued == 7
    assert work.run(scope).facts == 7
    assert work.status(scope).queued == 0


def test_a_fact_retired_while_queued_leaves_the_queue_without_enrichment(
    memory: Memory, scope: str
) -> None:
    fact = memory.remember(scope, {"text": "I painted yesterday", "valid_from": SAID_ON})
    memory.forget(scope, fact.id)
    consolidator(memory).run(scope)
    after = stored(memory.db, scope, fact.id)
    assert not after["queued"]
    assert "[yesterday" not in after["index_text"]
    trail = memory.audit_trail(scope, fact.id)
    assert trail[-1].kind == "consolidate" and trail[-1].reason.startswith("forgotten")


# -- mentions -----------------------------------------------------------------------------------
def test_a_fact_naming_a_known_entity_is_linked_to_it(memory: Memory, scope: str) -> None:
    memory.remember(scope, {"text": "Melanie runs charity races", "subject": "Melanie"})
    told = memory.remember(
        scope, {"text": "Caroline: I told melanie's kids about the adoption", "subject": "Caroline"}
    )
    consolidator(memory).run(scope)

    node = memory.node(scope, told.id)
    assert node is not None
    links = {(n.id, n.relation) for n in node.neighbours if n.edge_type == "MENTIONS"}
    assert ("entity:melanie", "mention") in links
    assert ("entity:caroline", "subject") in links
    assert ("entity:caroline", "mention") not in links  # already linked as its subject
    reason = memory.audit_trail(scope, told.id)[-1].reason
    assert reason == "mentions: melanie"


def test_mentions_off_links_nothing(memory: Memory, scope: str) -> None:
    memory.remember(scope, {"text": "Melanie runs charity races", "subject": "Melanie"})
    told = memory.remember(scope, {"text": "I told Melanie", "subject": "Caroline"})
    consolidator(memory, mentions=False).run(scope)
    node = memory.node(scope, told.id)
    assert node is not None
    assert "entity:melanie" not in {n.id for n in node.neighbours}


# -- expiry ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("action", ["forget", "purge"])
def test_facts_past_their_expiry_are_retired_with_an_audit_entry(
    memory: Memory, scope: str, action: str
) -> None:
    soon = datetime.now(UTC) + timedelta(days=1)
    expiring = memory.remember(scope, {"text": "door code is 4411", "expires_at": soon})
    lasting = memory.remember(scope, {"text": "the cat is called Tom"})
    later = soon + timedelta(hours=1)
    work = Consolidator(memory, dataclasses.replace(ALL_ON, expiry=action), clock=lambda: later)

    assert work.run(scope).expired == 1

    retired_by = [e for e in memory.audit_trail(scope, expiring.id) if e.kind == action]
    assert len(retired_by) == 1
    assert retired_by[0].actor == "consolidator"
    assert retired_by[0].reason.startswith("expired at ")
    if action == "forget":
        retired = memory.db.read("fact_get", {"scope": scope, "id": expiring.id})
        assert retired[0]["fact"]["status"] == FactStatus.FORGOTTEN.value
    else:
        assert memory.db.read("fact_get", {"scope": scope, "id": expiring.id}) == []
    assert memory.get(scope, lasting.id) is not None


def test_the_default_sweep_hides_expired_facts_and_a_new_write_is_not_folded_into_them(
    memory: Memory, scope: str
) -> None:
    assert ConsolidationSettings().expiry == "hide"
    soon = datetime.now(UTC) + timedelta(days=1)
    fact = memory.remember(scope, {"text": "door code is 4411", "expires_at": soon})
    later = soon + timedelta(hours=1)
    work = Consolidator(memory, ConsolidationSettings(), clock=lambda: later)

    assert work.run(scope).expired == 1
    assert work.run(scope).expired == 0  # hidden once: the sweep does not come back to it
    kept = memory.db.read("fact_get", {"scope": scope, "id": fact.id})[0]["fact"]
    assert kept["status"] == FactStatus.ACTIVE.value  # kept, not forgotten
    assert not {"forget", "purge"} & {e.kind for e in memory.audit_trail(scope, fact.id)}

    # The same text written after the date is a new fact, not a duplicate of the hidden one.
    again = Memory(memory.db, memory.embedder, clock=lambda: later).remember_with_decision(
        scope, {"text": "door code is 4411"}
    )
    assert again.kind.value == "insert" and again.fact.id != fact.id


def test_expiry_off_leaves_expired_facts_alone(memory: Memory, scope: str) -> None:
    soon = datetime.now(UTC) + timedelta(days=1)
    fact = memory.remember(scope, {"text": "door code is 4411", "expires_at": soon})
    work = Consolidator(
        memory, dataclasses.replace(ALL_ON, expiry="off"), clock=lambda: soon + timedelta(days=1)
    )
    assert work.run(scope).expired == 0
    assert memory.get(scope, fact.id) is not None


# -- the background worker, metrics and health ----------------------------------------------------
def test_the_background_worker_takes_batches_and_reports_metrics(
    db: Database, embedder: Embedder, scope: str
) -> None:
    own = Memory(db, embedder)
    for n in range(3):
        own.remember(scope, {"text": f"fact {n} from yesterday"})

    class ThisScopeOnly(Consolidator):
        """The worker takes the scope queued longest first: a store that keeps a bench's
        100,000 queued facts (a developer's, not CI's) would keep it there past the timeout."""

        def queued_scopes(self, limit: int = 1_000) -> list[QueuedScope]:
            return [s for s in super().queued_scopes(limit) if s.scope == scope]

    worker = BackgroundConsolidator(ThisScopeOnly(own, dataclasses.replace(ALL_ON, batch_size=2)))
    before = metrics.CONSOLIDATION_FACTS._value.get()
    handled = 0
    while Consolidator(own).status(scope).queued:
        handled += worker.step()
    assert handled >= 3
    assert metrics.CONSOLIDATION_FACTS._value.get() - before >= 3
    assert worker.state().facts >= 3
    page = metrics.render().decode()
    for name in ("queue_depth", "lag_seconds", "facts_per_second", "facts_total"):
        assert f"factgraph_consolidation_{name}" in page


def test_health_reports_a_stalled_worker(db: Database, embedder: Embedder) -> None:
    own = Memory(db, embedder)
    assert health_report(own).consolidation is None
    dead = BackgroundConsolidator(Consolidator(own))  # a thread that is not running
    _running[own] = dead
    try:
        report = health_report(own)
        assert report.consolidation is not None and report.consolidation.stalled
        assert report.detail is not None and "consolidator stalled" in report.detail
        assert report.as_json()["consolidation"]["stalled"] is True  # type: ignore[index]
    finally:
        del _running[own]
    started = BackgroundConsolidator.start_for(own)
    try:
        assert worker_of(own) is started
        assert not health_report(own).consolidation.stalled  # type: ignore[union-attr]
    finally:
        started.stop()
    assert worker_of(own) is None


# -- GraphQL ------------------------------------------------------------
def test_graphql_shows_a_scopes_queue_and_queues_it_again(
    memory: Memory, scope: str, gql: Any
) -> None:
    memory.remember(scope, {"text": "one yesterday"})
    memory.remember(scope, {"text": "two last week"})
    status = gql.data(
        "query($s: String!) { consolidation(scope: $s) { scope queued oldestQueuedAt lagSeconds "
        "enrichers workerRunning workerStalled } }",
        s=scope,
    )["consolidation"]
    assert status["queued"] == 2 and status["scope"] == scope
    assert status["oldestQueuedAt"] is not None and status["lagSeconds"] >= 0
    assert status["enrichers"] == ["mentions", "expiry:hide"]  # the defaults
    assert status["workerRunning"] is False  # the suite's server runs no worker

    consolidator(memory).run(scope)
    again = gql.data(
        "mutation($s: String!) { requeueConsolidation(scope: $s) { queued requeued } }", s=scope
    )["requeueConsolidation"]
    assert again == {"queued": 2, "requeued": 2}


# -- kill and restart ------------------------------------------------------------
def test_a_worker_killed_mid_batch_finishes_after_a_restart_with_nothing_lost_or_done_twice(
    memory: Memory, scope: str, settings: Settings, tmp_path: Path
) -> None:
    path = tmp_path / "turns.jsonl"
    total = 60
    rows = [
        {
            "text": f"turn {n}: we went to the lake yesterday",
            "valid_from": SAID_ON.isoformat(),
            # Ids of this scope's own: a suite killed halfway leaves its facts behind, and an
            # import refuses an id that a fact of another scope holds.
            "id": f"{scope}-turn-{n:03d}",
        }
        for n in range(total)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run_import(memory, ImportOptions(path=path, scope=scope, fast=True, progress=False))
    env = {**cli_env(settings, tmp_path / "home"), "FACTGRAPH_CONSOLIDATE_TIME": "on"}

    # The third batch (turns 20-29) is held mid-transaction: this test holds turn 25's lock, so
    # the worker has written turns 20-24 of it, uncommitted, when it is killed.
    with memory.db.session() as session:
        holder = session.begin_transaction()
        holder.run(
            "MATCH (f:Fact {id: $id}) WHERE f.scope = $scope SET f._lock = true",
            id=f"{scope}-turn-025",
            scope=scope,
        ).consume()
        worker = subprocess.Popen(
            [str(FACTGRAPH), "consolidate", "--scope", scope, "--batch", "10"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert worker.stdout is not None
        lines = [worker.stdout.readline(), worker.stdout.readline()]
        assert lines == [f"consolidated 10 facts of {scope!r}\n"] * 2
        worker.send_signal(signal.SIGKILL)  # as a crash or an OOM kill would
        worker.wait()
        holder.rollback()

    assert Consolidator(memory).status(scope).queued == total - 20

    restarted = factgraph(env, "consolidate", "--scope", scope, "--batch", "10")

    assert restarted.stdout.count("consolidated 10 facts") == (total - 20) // 10
    assert Consolidator(memory).status(scope).queued == 0
    for n in range(total):
        fact_id = f"{scope}-turn-{n:03d}"
        assert audit_kinds(memory, scope, fact_id).count("consolidate") == 1, fact_id
        text = stored(memory.db, scope, fact_id)["index_text"]
        assert text.count("[yesterday = 7 May 2023]") == 1, text


# -- factgraph serve ---------------------------------------------------------------------
@pytest.mark.parametrize("on", [True, False])
def test_serve_runs_the_worker_by_default_and_not_when_turned_off(
    settings: Settings, on: bool
) -> None:
    from starlette.testclient import TestClient

    from resolvers.app import create_app

    consolidation = dataclasses.replace(settings.consolidation, worker=on)
    app = create_app(
        settings=settings.with_overrides(warmup="off", consolidation=consolidation),
        require_auth=False,
    )
    with TestClient(app) as client:
        health = client.get("/healthz").json()
    if on:
        assert health["consolidation"]["running"] is True
        assert health["consolidation"]["stalled"] is False
    else:
        assert health["consolidation"] is None
