"""Reading text at write time: every fact is linked to the names, topics and identifiers its text
mentions, one term node per scope, on every write path, and `factgraph read-texts` does it for
facts stored before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graph.bulk.embedjobs import embed_missing
from graph.bulk.importer import ImportOptions, run_import
from graph.bulk.reading import read_texts
from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.reading import Role, read, terms
from graph.reading.standing import Standing
from graph.search.options import Fusion, FusionMethod, Mode, SearchOptions
from graph.storage.db import Database
from graph.write.entities import DefaultEntityResolver
from graph.write.facts import FactInput

RESOLVER = DefaultEntityResolver()


# -- the reader, without Neo4j -------------------------------------------------------------


def test_names_are_capitalised_spans_without_sentence_openers_or_pronouns() -> None:
    reading = read(
        "Thanks Melanie! Yesterday I met Dr. Smith at the Bank of America in New York. "
        "Started a new job there. I'm so glad."
    )
    assert reading.names == ("Melanie", "Dr Smith", "Bank of America", "New York")


def test_a_name_opening_a_sentence_is_kept_and_acronyms_count() -> None:
    assert read("Caroline went to an LGBTQ support group.").names == ("Caroline", "LGBTQ")


def test_topics_are_key_phrases_with_their_head_pairs_and_words_singular() -> None:
    reading = read("I built a personal budget tracker, and the hiring processes take ages.")
    assert {"personal budget tracker", "budget tracker", "hiring process"} <= set(reading.topics)
    assert {"budget", "tracker"} <= set(reading.topics)
    assert not {"i", "the", "and", "built"} & set(reading.topics)


def test_identifiers_are_files_code_versions_urls_and_quantities() -> None:
    reading = read(
        "Fix the bug in src/parser.py: load_config() in utils.helpers breaks on Python 3.12 "
        "(see https://example.com/issue). I ran 5 km and paid $300 for 1,000 users."
    )
    assert reading.identifiers == (
        "src/parser.py",
        "load_config()",
        "utils.helpers",
        "3.12",
        "https://example.com/issue",
        "5 km",
        "$300",
        "1000 users",
    )
    # An identifier gives no name or topic of its own parts.
    assert "parser" not in reading.topics and "py" not in reading.topics
    assert reading.names == ("Python",)


def test_terms_fold_case_and_plurals_through_the_entity_resolver() -> None:
    a = terms(read("Budget trackers help"), RESOLVER)
    b = terms(read("my budget tracker"), RESOLVER)
    assert "budget tracker" in {t.canonical for t in a} & {t.canonical for t in b}
    roles = {t.canonical: (t.role, t.weight) for t in terms(read("Flask in app.py"), RESOLVER)}
    assert roles == {"flask": (Role.NAME, 1.0), "app.py": (Role.IDENTIFIER, 1.0)}


def test_the_reading_carries_the_standing_verdict() -> None:
    assert read("From now on, always answer in French").standing is Standing.INSTRUCTION
    assert read("I visited Paris").standing is None


# -- the graph, on every write path ---------------------------------------------------------


def mentions(db: Database, scope: str) -> dict[str, set[tuple[str, str]]]:
    """Each fact's text -> its (role, term canonical) links."""
    records = db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope}) OPTIONAL MATCH (f)-[m:MENTIONS]->(t:Term) "
        "RETURN f.text AS text, f.read_v AS read_v, "
        "collect([m.role, t.canonical, m.weight]) AS links",
        scope=scope,
    ).records
    out: dict[str, set[tuple[str, str]]] = {}
    for record in records:
        assert record["read_v"] == 1, record["text"]
        out[record["text"]] = {(role, canonical) for role, canonical, _ in record["links"] if role}
    return out


def specificity(db: Database, scope: str) -> dict[str, int]:
    """Each term of the scope -> how many facts mention it."""
    records = db.driver.execute_query(
        "MATCH (t:Term {scope: $scope}) RETURN t.canonical AS term, "
        "COUNT { (t)<-[:MENTIONS]-(:Fact) } AS facts",
        scope=scope,
    ).records
    return {r["term"]: r["facts"] for r in records}


TEXTS = [
    "Stephen is porting the budget tracker to Flask 3.0",
    "Stephen wrote the hiring process doc in hiring.md",
    "The user said the thing was fine",
]


def expected() -> dict[str, set[tuple[str, str]]]:
    return {
        text: {(t.role.value, t.canonical) for t in terms(read(text), RESOLVER)} for text in TEXTS
    }


def test_remember_links_each_fact_to_one_term_per_scope_with_its_specificity(
    memory: Memory, scope: str
) -> None:
    for text in TEXTS:
        memory.remember(scope, FactInput(text=text))
    linked = mentions(memory.db, scope)
    assert linked == expected()
    assert ("name", "stephen") in linked[TEXTS[0]] and ("identifier", "3.0") in linked[TEXTS[0]]
    assert ("topic", "budget tracker") in linked[TEXTS[0]]
    assert ("identifier", "hiring.md") in linked[TEXTS[1]]
    counts = specificity(memory.db, scope)
    assert counts["stephen"] == 2  # one node, two facts
    assert counts["budget tracker"] == 1


def test_a_token_too_long_to_be_a_term_is_written_without_one(memory: Memory, scope: str) -> None:
    # Neo4j's range index refuses keys of ~8 KB: such a "term" made the whole write a 500.
    run = "Zq" + "x" * 9_000 + ".md"
    fact = memory.remember(scope, FactInput(text=f"Stephen attached {run} to the ticket"))
    linked = mentions(memory.db, scope)[fact.text]
    assert ("name", "stephen") in linked
    assert all(len(term) <= 200 for _role, term in linked)


def test_a_batch_links_as_remember_does(memory: Memory, scope: str) -> None:
    memory.remember_many(scope, [FactInput(text=text) for text in TEXTS])
    assert mentions(memory.db, scope) == expected()


@pytest.fixture
def bulk(db: Database, embedder: Embedder, settings: Settings, tmp_path: Path) -> Memory:
    return Memory(db, embedder, settings=settings.with_overrides(home=tmp_path / "home"))


def test_a_fast_import_links_as_remember_does(bulk: Memory, scope: str, tmp_path: Path) -> None:
    path = tmp_path / "facts.jsonl"
    path.write_text("\n".join(json.dumps({"text": t}) for t in TEXTS) + "\n", encoding="utf-8")
    run_import(bulk, ImportOptions(path=path, scope=scope, fast=True, progress=False))
    assert mentions(bulk.db, scope) == expected()


def test_embed_missing_links_facts_loaded_by_cypher(bulk: Memory, scope: str) -> None:
    rows: list[dict[str, Any]] = [{"id": f"{scope}-{i}", "text": t} for i, t in enumerate(TEXTS)]
    bulk.db.write("import_template_rows", {"scope": scope, "rows": rows})
    embed_missing(bulk, scopes=[scope])
    assert mentions(bulk.db, scope) == expected()


def test_read_texts_links_facts_written_before_and_a_second_run_reads_nothing(
    memory: Memory, scope: str
) -> None:
    for text in TEXTS:
        memory.remember(scope, FactInput(text=text))
    memory.db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope}) OPTIONAL MATCH (f)-[m:MENTIONS]->(:Term) "
        "DELETE m REMOVE f.read_v",
        scope=scope,
    )
    first = read_texts(memory.db, RESOLVER, scopes=[scope], batch_size=2)
    second = read_texts(memory.db, RESOLVER, scopes=[scope])
    again = read_texts(memory.db, RESOLVER, scopes=[scope], every=True)
    assert (first.seen, first.read) == (3, 3)
    assert (second.seen, second.read) == (3, 0)
    assert again.read == 3
    assert mentions(memory.db, scope) == expected()  # read again: the same links, no doubles
    assert specificity(memory.db, scope)["stephen"] == 2


def test_forgetting_a_fact_for_good_removes_the_terms_no_other_fact_mentions(
    memory: Memory, scope: str
) -> None:
    kept = memory.remember(scope, FactInput(text=TEXTS[0]))
    gone = memory.remember(scope, FactInput(text=TEXTS[1]))
    memory.purge(scope, gone.id, reason="test")
    counts = specificity(memory.db, scope)
    assert counts["stephen"] == 1 and "hiring.md" not in counts
    assert mentions(memory.db, scope) == {kept.text: expected()[kept.text]}


# -- the graph list -------------------------------------------------------------------------

STORY = [
    ("s1", 1, "Stephen: I'm building the budget tracker in Flask this month"),
    ("s1", 2, "assistant: Start with a SQLite table for the expenses"),
    ("s2", 1, "Stephen: the budget tracker now exports a CSV every Friday"),
    ("s3", 1, "Stephen: my sister adopted a greyhound called Pixel"),
    ("s3", 2, "assistant: Greyhounds love short sprints"),
]


def test_the_graph_list_finds_facts_by_the_query_terms_and_spreads_along_the_story(
    memory: Memory, scope: str
) -> None:
    ids = {}
    for session, turn, text in STORY:
        fact = memory.remember(scope, FactInput(text=text, session_id=session, turn=turn))
        ids[(session, turn)] = fact.id
    graph_only = SearchOptions(
        mode=Mode.HYBRID,
        fusion=Fusion(method=FusionMethod.COMBSUM, fulltext=0, vector=0, passage=0, terms=1),
        top_k=5,
    )
    result = memory.search(scope, "what did I build with Flask?", options=graph_only)
    found = [hit.fact.id for hit in result.hits]
    # Flask names one fact; the budget tracker it shares leads to the other session's fact,
    # ahead of the greyhound story, which shares only its speaker with it; the next turn of its
    # session follows it too.
    assert found[0] == ids[("s1", 1)]
    assert found.index(ids[("s2", 1)]) < found.index(ids[("s3", 1)])
    assert ids[("s1", 2)] in found
    sources = {s.list for s in result.hits[0].sources}
    assert "terms" in sources
    # Off by default: the default search never asks it.
    default = memory.search(scope, "what did I build with Flask?")
    assert all(s.list != "terms" for hit in default.hits for s in hit.sources)
