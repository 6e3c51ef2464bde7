"""Standing instructions and preferences: recognised when written, returned beside a search's
hits, listed, and retired by a later statement that revokes them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from factgraph_client import Client
from graph.bulk.importer import ImportOptions, run_import
from graph.config import Settings
from graph.errors import ValidationError
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.reading.standing import Standing, recognise, revokes
from graph.search import SearchOptions
from graph.search.standing import bearing
from graph.storage.db import Database
from graph.write.facts import DecisionKind, FactStatus
from tests.cli_helpers import cli_env, factgraph
from tests.conftest import GraphQLClient
from tests.mcp_helpers import ok, over_http

TYPE_HINTS = "Always include type hints in Python code."
POSTGRES = "I prefer PostgreSQL over MySQL for new projects."
ORDINARY = "The deploy ran on Friday and took twelve minutes."


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (TYPE_HINTS, Standing.INSTRUCTION),
        ("From now on, answer in French please.", Standing.INSTRUCTION),
        ("Never use semicolons in JavaScript.", Standing.INSTRUCTION),
        ("user: Always format dates as Month Day, Year when I ask about deadlines.", "instruction"),
        ("Whenever I ask about APIs, include the status codes.", Standing.INSTRUCTION),
        (POSTGRES, Standing.PREFERENCE),
        ("I'd rather use tabs than spaces.", Standing.PREFERENCE),
        ("I like working in short bursts of thirty minutes.", Standing.PREFERENCE),
        ("My preference is dark mode everywhere.", Standing.PREFERENCE),
        (ORDINARY, None),
        ("It always crashes when the cache is cold.", None),
        ("Always here to help!", None),
        ("I like that idea.", None),
        ("assistant: Always validate the input before saving it.", None),
        ("Actually, drop the type hints.", None),
        ('{"text": "Always include type hints in Python code."}', Standing.INSTRUCTION),
        ('["note", "It always crashes when the cache is cold."]', None),
    ],
)
def test_standing_statements_are_told_apart_from_other_text(
    text: str, kind: Standing | str | None
) -> None:
    assert recognise(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "Actually, drop the type hints.",
        "Forget what I said about semicolons.",
        "I no longer prefer PostgreSQL.",
        "You can stop using bullet points.",
    ],
)
def test_revocations_are_recognised(text: str) -> None:
    assert revokes(text)
    assert not revokes(TYPE_HINTS) and not revokes(ORDINARY)


def labels(db: Database, fact_id: str) -> set[str]:
    records = db.driver.execute_query(
        "MATCH (f:Fact {id: $id}) RETURN labels(f) AS labels", id=fact_id
    ).records
    return set(records[0]["labels"])


def test_a_standing_statement_is_kept_so_in_the_graph(
    memory: Memory, db: Database, scope: str
) -> None:
    hints = memory.remember(scope, {"text": TYPE_HINTS})
    postgres = memory.remember(scope, {"text": POSTGRES})
    plain = memory.remember(scope, {"text": ORDINARY})
    assert (hints.standing, postgres.standing, plain.standing) == (
        "instruction",
        "preference",
        None,
    )
    assert "Standing" in labels(db, hints.id) and "Standing" in labels(db, postgres.id)
    assert "Standing" not in labels(db, plain.id)
    got = memory.get(scope, hints.id)
    assert got is not None and got.standing == "instruction"


def test_a_batch_and_an_import_recognise_them_too(
    memory: Memory,
    db: Database,
    embedder: Embedder,
    settings: Settings,
    scope: str,
    tmp_path: Path,
) -> None:
    batch = memory.remember_many(scope, [{"text": TYPE_HINTS}, {"text": ORDINARY}])
    assert [d.fact.standing for d in batch] == ["instruction", None]
    assert "Standing" in labels(db, batch[0].fact.id)
    bulk = Memory(db, embedder, settings=settings.with_overrides(home=tmp_path / "home"))
    rows = [{"id": f"{scope}-p", "text": f"user: {POSTGRES}"}, {"id": f"{scope}-o", "text": "x"}]
    path = tmp_path / "facts.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run_import(bulk, ImportOptions(path=path, scope=scope, fast=True, progress=False))
    assert "Standing" in labels(db, f"{scope}-p") and "Standing" not in labels(db, f"{scope}-o")
    assert {f.id for f in memory.standing(scope, kind="preference")} == {f"{scope}-p"}


def test_mark_standing_brings_facts_stored_without_the_patterns_up_to_date(
    memory: Memory, db: Database, settings: Settings, scope: str, tmp_path: Path
) -> None:
    """A store written before the patterns existed (or by a batch Cypher job) has no marks, and
    a fact marked by older patterns may carry one it should not: `factgraph mark-standing`
    re-reads them all, and a second run finds nothing to do."""
    hints = memory.remember(scope, {"text": TYPE_HINTS})
    postgres = memory.remember(scope, {"text": POSTGRES})
    plain = memory.remember(scope, {"text": ORDINARY})
    db.driver.execute_query(
        "MATCH (f:Fact) WHERE f.id IN $ids REMOVE f:Standing SET f.standing = null",
        ids=[hints.id, postgres.id],
    )
    db.driver.execute_query(
        "MATCH (f:Fact {id: $id}) SET f:Standing, f.standing = 'instruction'", id=plain.id
    )
    assert [f.id for f in memory.standing(scope)] == [plain.id]

    env = cli_env(settings, tmp_path / "home")
    done = factgraph(env, "mark-standing", "--scope", scope, "--no-progress")
    assert "3 facts read, 2 marked standing, 1 marks cleared" in done.stdout
    assert {f.id: f.standing for f in memory.standing(scope)} == {
        hints.id: "instruction",
        postgres.id: "preference",
    }
    assert "Standing" in labels(db, hints.id) and "Standing" not in labels(db, plain.id)
    again = factgraph(env, "mark-standing", "--scope", scope, "--no-progress")
    assert "3 facts read, 0 marked standing, 0 marks cleared" in again.stdout


@pytest.fixture
def project(memory: Memory, scope: str) -> dict[str, str]:
    """A scope with two standing statements among ordinary facts."""
    facts = [
        TYPE_HINTS,
        POSTGRES,
        ORDINARY,
        "The team meets on Tuesdays at ten.",
        "The office moved to the third floor in March.",
    ]
    return {text: memory.remember(scope, {"text": text}).id for text in facts}


def test_a_search_returns_the_standing_statements_that_bear_on_it(
    memory: Memory, scope: str, project: dict[str, str]
) -> None:
    # Shares no word with the instruction it should honour.
    result = memory.search(scope, "write a function that parses a CSV file")
    texts = [s.fact.text for s in result.standing]
    assert texts[0] == TYPE_HINTS
    assert ORDINARY not in texts  # only standing statements come in the field
    database = memory.search(scope, "which database should the new service use?")
    assert database.standing[0].fact.text == POSTGRES
    assert all(0.86 <= s.similarity <= 1.0 for s in database.standing)


def test_the_standing_field_is_capped_and_can_be_turned_off(
    memory: Memory, scope: str, project: dict[str, str]
) -> None:
    one = memory.search(scope, "which database?", options=SearchOptions.build(standing_limit=1))
    assert len(one.standing) == 1
    none = memory.search(scope, "which database?", options=SearchOptions.build(standing_limit=0))
    assert none.standing == []
    with pytest.raises(ValidationError) as error:
        SearchOptions.build(standing_limit=21)
    assert error.value.field == "standing_limit"


def test_a_revocation_supersedes_the_statement_it_names(
    memory: Memory, scope: str, project: dict[str, str]
) -> None:
    decision = memory.remember_with_decision(scope, {"text": "Actually, drop the type hints."})
    assert decision.kind is DecisionKind.SUPERSEDE
    assert decision.matched is not None and decision.matched.id == project[TYPE_HINTS]
    old = memory.get(scope, project[TYPE_HINTS])
    assert old is not None and old.status is FactStatus.SUPERSEDED
    assert [f.text for f in memory.standing(scope)] == [POSTGRES]
    found = memory.search(scope, "write a function that parses a CSV file")
    assert TYPE_HINTS not in [s.fact.text for s in found.standing]
    chain = memory.history(scope, decision.fact.id)
    assert [f.id for f in chain] == [project[TYPE_HINTS], decision.fact.id]
    # A revocation of something never said retires nothing.
    other = memory.remember_with_decision(scope, {"text": "Forget what I said about emojis."})
    assert other.kind is DecisionKind.INSERT


def test_a_preference_is_revoked_by_no_longer_preferring_it(
    memory: Memory, scope: str, project: dict[str, str]
) -> None:
    decision = memory.remember_with_decision(scope, {"text": "I no longer prefer PostgreSQL."})
    assert decision.matched is not None and decision.matched.id == project[POSTGRES]
    assert [f.text for f in memory.standing(scope)] == [TYPE_HINTS]


def test_listing_by_kind_and_its_bad_input(
    memory: Memory, scope: str, project: dict[str, str]
) -> None:
    assert {f.text for f in memory.standing(scope)} == {TYPE_HINTS, POSTGRES}
    assert [f.text for f in memory.standing(scope, kind="instruction")] == [TYPE_HINTS]
    with pytest.raises(ValidationError) as error:
        memory.standing(scope, kind="rule")
    assert error.value.field == "kind"


def test_graphql_returns_and_lists_them(
    gql: GraphQLClient, scope: str, project: dict[str, str]
) -> None:
    data = gql.data(
        """query($s: String!) {
          search(scope: $s, query: "write a function that parses a CSV file") {
            standing { similarity fact { text standing } }
          }
          standing(scope: $s, kind: PREFERENCE) { text standing }
        }""",
        s=scope,
    )
    first = data["search"]["standing"][0]
    assert first["fact"] == {"text": TYPE_HINTS, "standing": "INSTRUCTION"}
    assert 0.0 < first["similarity"] <= 1.0
    assert data["standing"] == [{"text": POSTGRES, "standing": "PREFERENCE"}]


def test_rest_returns_and_lists_them(
    http: httpx.Client, scope: str, project: dict[str, str]
) -> None:
    headers = {"X-Scope": scope}
    body = http.post(
        "/api/v1/search", json={"query": "which database?", "standing_limit": 1}, headers=headers
    ).json()
    (only,) = body["standing"]
    assert only["kind"] == "preference" and only["memory"]["content"] == POSTGRES
    listed = http.get("/api/v1/standing", params={"kind": "instruction"}, headers=headers)
    assert [s["memory"]["content"] for s in listed.json()["standing"]] == [TYPE_HINTS]
    bad = http.get("/api/v1/standing", params={"kind": "rule"}, headers=headers)
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "kind"


def test_the_mcp_search_tool_returns_them(
    server_url: str, scope: str, project: dict[str, str]
) -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        return ok(await session.call_tool("search", {"query": "which database?"}))

    found = over_http(server_url, steps, scope=scope)
    assert found["standing"][0]["text"] == POSTGRES
    assert found["standing"][0]["kind"] == "preference"


def test_the_browser_and_the_console_show_them(http: httpx.Client) -> None:
    style = http.get("/neo4j-browser/style.grass").text
    rule = style.split("node.Standing {")[1].split("\n}")[0]
    assert 'caption: "{standing} - {text}";' in rule
    # The Browser applies the rules in order: a superseded statement is drawn as superseded.
    assert style.index("node.Active {") < style.index("node.Standing {")
    assert style.index("node.Standing {") < style.index("node.Superseded {")
    search = http.get("/console/assets/views/search.js").text
    assert "standing { similarity fact" in search


def test_the_python_client_returns_and_lists_them(
    server_url: str, scope: str, project: dict[str, str]
) -> None:
    with Client(server_url, scope=scope, timeout=300) as client:
        found = client.search("which database should the new service use?", standing_limit=2)
        assert found.standing[0].fact.text == POSTGRES
        assert found.standing[0].kind == "preference" and len(found.standing) <= 2
        listed = client.standing(kind="instruction")
    assert [(s.fact.text, s.kind, s.similarity) for s in listed] == [
        (TYPE_HINTS, "instruction", None)
    ]


def test_with_a_lift_a_query_about_something_else_gets_no_standing_statement(
    memory: Memory, scope: str
) -> None:
    """e5 puts every query near every statement ("zebra" clears the absolute floor for both),
    so a statement must also rise above its similarity to the background centroid."""
    memory.remember(scope, {"text": TYPE_HINTS})
    memory.remember(scope, {"text": POSTGRES})
    memory.remember(scope, {"text": ORDINARY})

    def kept(query: str, lift: float) -> list[str]:
        vector = list(memory.embedder.embed_query(query))
        found = bearing(
            memory.db,
            scope,
            vector,
            datetime.now(UTC),
            query=query,
            lift=lift,
            model=memory.embedder.id,
        )
        return [s.fact.text for s in found]

    assert len(kept("zebra", 0.0)) == 2  # the absolute floor alone keeps both
    assert kept("zebra", 0.02) == []
    assert kept("what pet does Carol have?", 0.02) == []
    assert kept("write me a parser for config files in Python", 0.02)[0] == TYPE_HINTS
    assert kept("which database should the new service use?", 0.02)[0] == POSTGRES
