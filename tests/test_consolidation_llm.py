"""The LLM enrichers of the consolidator, against a local OpenAI-compatible stand-in.

Extraction draws atomic facts from a turn and the turns before it; each goes through the
conflict pipeline, linked DERIVED_FROM its turns and quarantined unless their source is
trusted. The situating context goes into the turn's index text only. Whatever the model does
wrong (malformed JSON, turns that do not exist, a timeout, 429) leaves an audit entry, the
reason on the turn, and no synthesised fact at all.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from graph.config import ConsolidationSettings, LLMSettings
from graph.consolidation import Consolidator
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage.db import Database
from graph.write.facts import FactStatus
from tests.llm_standin import Reply, StandIn, serve

SAID_ON = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
LLM_ON = ConsolidationSettings(time=True, mentions=False, expiry="off", extract=True, situate=False)


@pytest.fixture
def standin() -> Iterator[tuple[StandIn, LLMSettings]]:
    server, state, url = serve()
    yield (
        state,
        LLMSettings(base_url=url, api_key="sk-test", model="stand-in", timeout=0.5, max_retries=0),
    )
    server.shutdown()


def llm_memory(db: Database, embedder: Embedder, llm: LLMSettings, **changes: Any) -> Memory:
    consolidation = dataclasses.replace(LLM_ON, **changes)
    base = Memory(db, embedder)
    return Memory(
        db, embedder, settings=base.settings.with_overrides(llm=llm, consolidation=consolidation)
    )


def turn(memory: Memory, scope: str, n: int, text: str, source: str | None = None) -> str:
    return memory.remember(
        scope,
        {
            "text": text,
            "subject": text.split(":")[0],
            "session_id": "1",
            "turn": n,
            "valid_from": SAID_ON,
            "source": source,
        },
    ).id


def synthesised(db: Database, scope: str) -> list[dict[str, Any]]:
    with db.session(read=True) as session:
        return [
            dict(r["f"])
            for r in session.run(
                "MATCH (f:Fact) WHERE f.scope = $scope AND f.source = 'consolidator' "
                "RETURN f {.id, .text, .status, .subject, .predicate, .object} AS f",
                scope=scope,
            )
        ]


def queued_or_error(db: Database, scope: str, fact_id: str) -> tuple[bool, str | None]:
    with db.session(read=True) as session:
        record = session.run(
            "MATCH (f:Fact {id: $id}) RETURN f.consolidation_queued_at IS NOT NULL AS queued, "
            "f.consolidation_error AS error",
            id=fact_id,
        ).single()
    assert record is not None
    return record["queued"], record["error"]


def facts_answer(*facts: dict[str, Any]) -> Reply:
    return Reply(json.dumps({"facts": list(facts)}))


ADOPTION = {
    "text": "Caroline plans to adopt a child",
    "subject": "Caroline",
    "predicate": "plans",
    "object": "adopting a child",
    "sources": ["T1", "T2"],
}


def test_extracted_facts_are_quarantined_and_derived_from_their_turns(
    db: Database, embedder: Embedder, scope: str, standin: tuple[StandIn, LLMSettings], gql: Any
) -> None:
    state, llm = standin
    memory = llm_memory(db, embedder, llm, situate=True)
    first = turn(memory, scope, 1, "Melanie: What are your plans?")
    Consolidator(memory, dataclasses.replace(LLM_ON, extract=False)).run_batch(scope, 1)
    second = turn(memory, scope, 2, "Caroline: I'm looking into adoption agencies yesterday")
    context = "Caroline answers Melanie about her plans to adopt."
    state.script(Reply(context), facts_answer(ADOPTION))

    Consolidator(memory).run(scope)

    (fact,) = synthesised(db, scope)
    assert fact["status"] == FactStatus.QUARANTINED.value
    assert (fact["subject"], fact["predicate"]) == ("Caroline", "plans")
    assert sorted(memory.derived_from(scope, fact["id"])) == sorted([first, second])
    # The model saw the window as labelled turns, never fact ids.
    asked = state.requests[-1]["body"]["messages"][1]["content"]
    assert asked.startswith("T1: Melanie: What are your plans?\nT2: Caroline:")
    assert first not in asked
    # The situating context and the resolved date went into the turn's index text only.
    source = memory.get(scope, second)
    assert source is not None and source.text.endswith("adoption agencies yesterday")
    assert "context: Caroline answers Melanie about her plans to adopt." in source.index_text
    assert "yesterday = 7 May 2023" in source.index_text
    trail = memory.audit_trail(scope, second)
    assert trail[-1].kind == "consolidate" and "extracted: quarantine" in trail[-1].reason
    # The validation workflow admits it, and GraphQL shows where it came from.
    shown = gql.data(
        "query($s: String!, $id: ID!) { fact(scope: $s, id: $id, includeQuarantined: true) "
        "{ derivedFrom } }",
        s=scope,
        id=fact["id"],
    )["fact"]
    assert sorted(shown["derivedFrom"]) == sorted([first, second])
    assert memory.validate(scope, fact["id"]).fact.status is FactStatus.ACTIVE


def test_facts_drawn_from_a_trusted_source_go_live(
    db: Database, embedder: Embedder, scope: str, standin: tuple[StandIn, LLMSettings]
) -> None:
    state, llm = standin
    memory = llm_memory(db, embedder, llm, trusted_sources=frozenset({"diary"}))
    turn(memory, scope, 1, "Caroline: I adopted a puppy named Oscar", source="diary")
    state.script(
        facts_answer(
            {
                "text": "Caroline has a puppy named Oscar",
                "subject": "Caroline",
                "predicate": "has_pet",
                "object": "Oscar",
                "sources": ["T1"],
            }
        )
    )
    Consolidator(memory).run(scope)
    (fact,) = synthesised(db, scope)
    assert fact["status"] == FactStatus.ACTIVE.value


def test_an_extracted_fact_goes_through_the_conflict_pipeline(
    db: Database, embedder: Embedder, scope: str, standin: tuple[StandIn, LLMSettings]
) -> None:
    state, llm = standin
    memory = llm_memory(db, embedder, llm, trusted_sources=frozenset({"diary"}))
    memory.remember(scope, {"text": "Caroline has a puppy named Oscar", "source": "diary"})
    source = turn(memory, scope, 1, "Caroline: Oscar is my puppy", source="diary")
    state.script(facts_answer({"text": "Caroline has a puppy named Oscar", "sources": ["T1"]}))
    Consolidator(memory).run(scope)
    assert synthesised(db, scope) == []  # an exact duplicate of a live fact: reinforced
    assert "extracted: dedup" in memory.audit_trail(scope, source)[-1].reason


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        ([Reply('{"facts": [{"text": "Caroline plans"}')], "malformed JSON"),
        ([Reply("Sure! Caroline wants to adopt.")], "no JSON in the answer"),
        ([Reply(json.dumps({"memories": []}))], "no 'facts' list"),
        ([facts_answer({**ADOPTION, "sources": ["T1", "T7"]})], "name no turn of the window"),
        ([Reply(json.dumps({"facts": [{"text": "x", "sources": "T1"}]}))], "without sources"),
        ([Reply(facts_answer(ADOPTION).content, delay=2.0)], "timed out"),
        ([Reply(status=429)], "HTTP 429"),
        ([Reply(raw=b"<html>bad gateway</html>")], "malformed chat completion body"),
    ],
    ids=[
        "malformed-json",
        "prose",
        "wrong-shape",
        "unknown-ids",
        "bad-sources",
        "timeout",
        "429",
        "bad-body",
    ],
)
def test_a_failed_extraction_leaves_an_audit_entry_and_no_fact(
    db: Database,
    embedder: Embedder,
    scope: str,
    standin: tuple[StandIn, LLMSettings],
    replies: list[Reply],
    reason: str,
) -> None:
    state, llm = standin
    memory = llm_memory(db, embedder, llm)
    source = turn(memory, scope, 1, "Caroline: I'm looking into adoption agencies")
    state.script(*replies)

    Consolidator(memory).run(scope)

    assert synthesised(db, scope) == []
    failed = [e for e in memory.audit_trail(scope, source) if e.kind == "consolidate_failed"]
    assert len(failed) == 1 and reason in failed[0].reason, failed
    queued, error = queued_or_error(db, scope, source)
    assert not queued and error is not None and reason in error  # marked failed, with why
    # The deterministic enrichers still did their part, and a requeue tries the model again.
    consolidator = Consolidator(memory)
    consolidator.requeue(scope)
    state.script(facts_answer({**ADOPTION, "sources": ["T1"]}))
    consolidator.run(scope)
    assert [f["text"] for f in synthesised(db, scope)] == [ADOPTION["text"]]
    assert queued_or_error(db, scope, source) == (False, None)


def test_without_an_llm_endpoint_the_llm_enrichers_do_nothing(
    db: Database, embedder: Embedder, scope: str
) -> None:
    memory = llm_memory(db, embedder, LLMSettings())
    turn(memory, scope, 1, "Caroline: I adopted a puppy")
    consolidator = Consolidator(memory)
    assert consolidator.llm is None
    assert "extract" not in consolidator.enrichers
    assert consolidator.run(scope).facts == 1
    assert synthesised(db, scope) == []
