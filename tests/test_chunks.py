"""Long memories, whole: a text past the model's window is embedded in chunks, all searchable.

The model reads a text's first 512 tokens (about 2,000 characters); the rest of a long message
used to be invisible to vector search. Now every window of a long text has a vector: the first
is the fact's own, the others are `(:Chunk)-[:CHUNK_OF]->(:Fact)` nodes in a vector index, and a
fact scores as its best window. Every writer cuts a text the same way, the chunks follow their
fact's fate, and a text that fits the window is written exactly as before.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graph.bulk.embedjobs import embed_missing, reembed
from graph.bulk.importer import ImportOptions, run_import
from graph.config import Settings
from graph.errors import ValidationError
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.search import DEFAULT_CHUNK_DISCOUNT, candidates
from graph.storage.db import Database
from graph.write import chunks
from graph.write.validation import MAX_TEXT_CHARS
from tests.conftest import GraphQLClient

FILLER = [
    "We started the week by reviewing the component library for the dashboard. The buttons, "
    "cards and modal dialogs now share one set of design tokens, so colours and spacing come "
    "from a single theme file instead of being repeated in every stylesheet.",
    "The layout moved to CSS grid. Each page declares its regions (header, sidebar, content, "
    "footer) and the breakpoints rearrange them for tablets and phones without any JavaScript; "
    "the old float-based layout and its clearfix hacks are gone.",
    "Accessibility got a full pass: every interactive element is reachable by keyboard, focus "
    "rings are visible again, images carry alternative text and the colour contrast of the "
    "secondary buttons was raised to meet the AA level of the guidelines.",
    "For state management we kept the reducer pattern but split the store by feature. The "
    "notifications slice and the user preferences slice no longer import each other, which "
    "removed the circular dependency that broke hot reloading last month.",
    "Form validation now happens in one schema per form, shared by the client and the API, so "
    "an error message says the same thing in the browser and in the response body. Dates are "
    "parsed with an explicit format rather than trusting the locale of the machine.",
    "The charts were the slowest part of the dashboard. They render into a canvas now, with "
    "the data decimated to the number of pixels available, and a resize observer redraws them "
    "only when their container actually changes size.",
    "Internationalisation: strings live in message catalogues per language, plural rules come "
    "from the platform, and right-to-left languages mirror the layout through logical CSS "
    "properties instead of separate stylesheets.",
    "Testing: the component tests render in a simulated browser, the end-to-end tests drive a "
    "real one against a seeded test server, and visual snapshots are compared on every pull "
    "request so that an accidental margin change is caught before review.",
    "The build went from a custom webpack configuration to the framework's own bundler. Cold "
    "builds take a third of the time, the development server starts in two seconds, and the "
    "production bundle lost forty kilobytes of polyfills nobody needed.",
    "Error reporting sends uncaught exceptions with their component stack and the last few "
    "user actions, scrubbed of personal data, and groups them by fingerprint so that one bug "
    "in a popular view does not bury everything else.",
    "Performance budgets are checked in continuous integration: the largest contentful paint "
    "must stay under two seconds on a throttled connection and the main bundle under two "
    "hundred kilobytes, or the pipeline fails with the numbers that went over.",
    "Finally the onboarding tour was rewritten as a checklist the user can dismiss and find "
    "again from the help menu, because the modal walkthrough was closed within three seconds "
    "by most people who saw it.",
]
LAST = (
    "One more thing about operations: the nightly database backups are compressed with zstd "
    "and copied to an object storage bucket in Frankfurt, kept for thirty days, and a full "
    "restore is rehearsed on the first Monday of every month."
)
QUESTION = "Where are the nightly database backups stored and how long are they kept?"
# Short facts closer to QUESTION than the long message's first window, farther than its end.
OTHERS = [
    "Logs are kept for a week on the build server before they are deleted.",
    "We store customer invoices as PDF files for ten years.",
    "Old sprint recordings are archived after three months.",
    "The database schema migrations run automatically on every deploy.",
]


def long_message(size: int = 6_000) -> str:
    """A message of about `size` characters whose last paragraph alone answers QUESTION."""
    paragraphs: list[str] = []
    n = 0
    while len("\n\n".join([*paragraphs, LAST])) < size:
        paragraphs.append(FILLER[n % len(FILLER)])
        n += 1
    return "\n\n".join([*paragraphs[:-1], LAST]) if n > 1 else LAST


def chunks_of(db: Database, scope: str) -> dict[str, list[dict[str, Any]]]:
    """Fact id -> its chunks in order (a test instrument)."""
    records, _, _ = db.driver.execute_query(
        "MATCH (c:Chunk {scope: $scope})-[:CHUNK_OF]->(f:Fact) "
        "RETURN f.id AS fact, c {.ord, .start, .end, .fact_id, .embedding} AS chunk "
        "ORDER BY fact, chunk.ord",
        scope=scope,
        database_=db.name,
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        out.setdefault(str(r["fact"]), []).append(dict(r["chunk"]))
    return out


def cosine(a: Iterable[float], b: Iterable[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def spans(chunks: list[dict[str, Any]]) -> list[tuple[int, int, int]]:
    return [(c["ord"], c["start"], c["end"]) for c in chunks]


@pytest.fixture(params=["exact", "index"])
def vector_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Search scores a small scope's vectors exactly; `index` forces the vector indexes'
    path (no exact scan), so both ways to a chunk are specified."""
    if request.param == "index":
        monkeypatch.setattr(candidates, "EXACT_MAX", 0)
    yield str(request.param)


def test_a_text_that_fits_the_window_is_one_vector_and_no_chunk(
    memory: Memory, scope: str, embedder: Embedder
) -> None:
    fact = memory.remember(scope, {"text": "Marta prefers tabs over spaces", "session_id": "s"})
    assert chunks_of(memory.db, scope) == {}
    assert embedder.windows(fact.text) == [(0, len(fact.text))]
    stored = memory.db.read("fact_vector", {"scope": scope, "id": fact.id})[0]["embedding"]
    assert cosine(stored, embedder.embed([fact.index_text])[0]) > 0.9999


def test_a_long_text_is_cut_into_overlapping_windows_that_each_fit_the_model(
    embedder: Embedder,
) -> None:
    text = long_message()
    context = "[session s1; on 15 March 2024] "
    windows = embedder.windows(text, context)
    assert len(windows) >= 3
    assert windows[0][0] == 0 and windows[-1][1] == len(text)
    for (_, end), (start, _) in itertools.pairwise(windows):
        assert start < end  # consecutive windows overlap: nothing falls between them
    for start, end in windows:
        tokens = embedder._windows.tokens(embedder.doc_prefix + context + text[start:end])
        assert tokens + 2 <= embedder.window  # [CLS] and [SEP]: the model reads it whole
    # Cuts fall between paragraphs or sentences, not inside words.
    assert all(text[end - 1] in ".!?" for _, end in windows)
    assert LAST in text[windows[-1][0] : windows[-1][1]]
    assert LAST not in text[windows[0][0] : windows[0][1]]


def test_a_text_in_sections_has_a_vector_for_each(memory: Memory, scope: str) -> None:
    """Sections (between U+001E) are cut and embedded each on its own: the first is the fact's
    own vector, the others chunks, however short; blank sections make none."""
    text = "Marta prefers tabs\x1e\x1e  \x1eShe rides to work\x1eand keeps bees"
    assert chunks.sections(text) == [(0, 18), (23, 40), (41, 55)]
    assert chunks.sections("no sections") == [(0, 11)]
    many = "\x1e".join("ab" for _ in range(1000))  # past the cap: the rest is one section
    cut = chunks.sections(many)
    assert len(cut) == chunks.MAX_SECTIONS and cut[-1] == (3 * (chunks.MAX_SECTIONS - 1), len(many))
    memory.remember(scope, {"text": text, "session_id": "s"})
    (made,) = chunks_of(memory.db, scope).values()
    assert spans(made) == [(1, 23, 40), (2, 41, 55)]


# Every fact of these tests is said on one day: the day is part of what is embedded ("[session
# s1; on 15 March 2024] ..."), and the scores below differ by thousandths.
SAID = {"session_id": "s1", "valid_from": "2024-03-15T10:00:00Z"}


@pytest.mark.parametrize("discount", [DEFAULT_CHUNK_DISCOUNT, 0.0])
def test_the_last_paragraph_of_a_long_message_finds_it_by_vector_alone(
    memory: Memory, scope: str, embedder: Embedder, vector_path: str, discount: float
) -> None:
    """A fact's vector score is its best window's, a later window's less the discount (0
    counts it as it is); by its first window alone (all the model read before chunks) every
    other fact would rank above the message."""
    text = long_message()
    assert 5_500 <= len(text) <= 6_500 and text.endswith(LAST)
    message = memory.remember(scope, {"text": text, "turn": 7, **SAID})
    for turn, other in enumerate(OTHERS):
        memory.remember(scope, {"text": other, "turn": turn, **SAID})

    hits = memory.search(
        scope, QUESTION, mode="vector", top_k=5, track_access=False, chunk_discount=discount
    ).hits

    query = embedder.embed_query(QUESTION)

    def score(vector: list[float]) -> float:  # the vector index's scale, (1 + cosine) / 2
        return (1 + cosine(query, vector)) / 2

    def own(fact_id: str) -> float:
        return score(memory.db.read("fact_vector", {"scope": scope, "id": fact_id})[0]["embedding"])

    best = max(score(c["embedding"]) for c in chunks_of(memory.db, scope)[message.id])
    found = {h.fact.id: next(s.score for s in h.sources if s.list == "vector") for h in hits}
    assert len(hits) == 1 + len(OTHERS)
    assert found[message.id] == pytest.approx(best - discount, abs=1e-3)
    assert all(
        found[fid] == pytest.approx(own(fid), abs=1e-3) for fid in found if fid != message.id
    )
    assert [h.fact.id for h in hits] == sorted(found, key=lambda fid: -found[fid])
    assert all(own(message.id) < own(fid) for fid in found if fid != message.id)
    if discount == 0.0:
        assert hits[0].fact.id == message.id  # found through its last window


def test_a_later_window_counts_only_when_clearly_closer_than_the_first(
    memory: Memory, scope: str
) -> None:
    """Each window of a long answer is one more chance to lie near a question by accident, so a
    window scores its cosine less the discount: with a discount larger than its lead, the long
    message ranks by its first window, below the short facts."""
    message = memory.remember(scope, {"text": long_message(), "turn": 7, **SAID})
    for turn, other in enumerate(OTHERS):
        memory.remember(scope, {"text": other, "turn": turn, **SAID})

    def ranked(discount: float) -> list[str]:
        result = memory.search(
            scope, QUESTION, mode="vector", top_k=5, track_access=False, chunk_discount=discount
        )
        return [h.fact.id for h in result.hits]

    assert ranked(0.0)[0] == message.id
    assert ranked(1.0)[-1] == message.id


def test_a_text_of_64000_characters_is_remembered_whole(memory: Memory, scope: str) -> None:
    text = long_message(MAX_TEXT_CHARS + 500)[-MAX_TEXT_CHARS:]
    assert len(text) == MAX_TEXT_CHARS
    fact = memory.remember(scope, {"text": text})
    chunks = chunks_of(memory.db, scope)[fact.id]
    assert fact.text == text
    assert [c["ord"] for c in chunks] == list(range(1, len(chunks) + 1))
    assert len(chunks) >= 20 and chunks[-1]["end"] == len(text)
    assert all(c["fact_id"] == fact.id for c in chunks)
    with pytest.raises(ValidationError) as refused:
        memory.remember(scope, {"text": text + "!"})
    assert refused.value.field == "text"


REMEMBER = """
mutation($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { kind fact { id text } }
}
"""


def test_a_text_of_64000_characters_is_accepted_through_graphql(
    gql: GraphQLClient, memory: Memory, scope: str
) -> None:
    # The text of the test above: its windows' vectors are the embedder's recent ones.
    text = long_message(MAX_TEXT_CHARS + 500)[-MAX_TEXT_CHARS:]
    result = gql.data(REMEMBER, scope=scope, fact={"text": text})["remember"]
    assert result["kind"] == "INSERT" and result["fact"]["text"] == text
    assert len(chunks_of(memory.db, scope)[result["fact"]["id"]]) >= 20
    body = gql(REMEMBER, scope=scope, fact={"text": text + "!"})
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["field"] == "text"


def test_chunks_follow_their_fact_through_forget_supersede_and_purge(
    memory: Memory, scope: str, vector_path: str
) -> None:
    first = {"text": long_message(), "valid_from": "2024-01-01T00:00:00Z"}
    old = memory.remember(scope, first)
    for other in OTHERS:
        memory.remember(scope, {"text": other, "valid_from": "2024-01-01T00:00:00Z"})

    def found(**options: Any) -> list[str]:
        # The best window as it is: what this test follows is the chunks' visibility.
        result = memory.search(
            scope, QUESTION, mode="vector", track_access=False, chunk_discount=0.0, **options
        )
        return [hit.fact.id for hit in result.hits]

    assert found()[0] == old.id
    moved = long_message().replace("in Frankfurt", "in Dublin")
    new = memory.supersede(
        scope, old.id, {"text": moved, "valid_from": "2024-06-01T00:00:00Z"}
    ).fact
    assert found()[0] == new.id and old.id not in found()  # a superseded fact's chunks hide
    assert found(as_of="2024-03-01T00:00:00Z")[0] == old.id  # and come back with its history
    memory.forget(scope, new.id)
    assert new.id not in found()
    assert set(chunks_of(memory.db, scope)) == {old.id, new.id}  # kept while their fact is
    assert memory.purge(scope, new.id)
    assert set(chunks_of(memory.db, scope)) == {old.id}
    memory.db.write("scope_delete", {"scope": scope})
    assert chunks_of(memory.db, scope) == {}


@pytest.fixture
def bulk(db: Database, embedder: Embedder, settings: Settings, tmp_path: Path) -> Memory:
    return Memory(db, embedder, settings=settings.with_overrides(home=tmp_path / "home"))


@pytest.fixture
def scopes(db: Database) -> Iterator[list[str]]:
    """Four scopes of this test's own, deleted afterwards."""
    names = [f"test-{uuid.uuid4().hex[:12]}" for _ in range(4)]
    yield names
    for name in names:
        db.write("scope_delete", {"scope": name})


def test_every_writer_cuts_a_long_text_into_the_same_chunks(
    bulk: Memory, embedder: Embedder, scopes: list[str], tmp_path: Path
) -> None:
    """remember, remember_many, import --fast, `embed --missing` after a Cypher load, an
    export imported elsewhere, and reembed of a store written before chunks."""
    fact = {
        "text": long_message(),
        "session_id": "s1",
        "turn": 3,
        "valid_from": "2024-03-15T10:00:00Z",
    }
    remembered, batched, imported, loaded = scopes
    bulk.remember(remembered, fact)
    bulk.remember_many(batched, [{"text": "A short one beside it"}, fact])
    path = tmp_path / "facts.jsonl"
    path.write_text(json.dumps(fact) + "\n", encoding="utf-8")
    run_import(bulk, ImportOptions(path=path, scope=imported, fast=True, progress=False))
    bulk.db.write(
        "import_template_rows", {"scope": loaded, "rows": [{"id": f"{loaded}-1", **fact}]}
    )
    embed_missing(bulk, scopes=[loaded])

    expected = next(iter(chunks_of(bulk.db, remembered).values()))
    assert len(expected) >= 2
    for other in (batched, imported, loaded):
        (got,) = chunks_of(bulk.db, other).values()
        assert spans(got) == spans(expected)
        for mine, theirs in zip(got, expected, strict=True):
            # int8 e5 pools a padded batch a little differently (~0.998).
            assert cosine(mine["embedding"], theirs["embedding"]) > 0.995

    # A store written before chunks: its long facts get them from `reembed --all`.
    bulk.db.driver.execute_query(
        "MATCH (c:Chunk {scope: $scope}) DETACH DELETE c", scope=remembered, database_=bulk.db.name
    )
    reembed(bulk.db, embedder, bulk.settings, scopes=[remembered], all_facts=True)
    (again,) = chunks_of(bulk.db, remembered).values()
    assert spans(again) == spans(expected)
    reembed(bulk.db, embedder, bulk.settings, scopes=[remembered], all_facts=True)
    assert spans(next(iter(chunks_of(bulk.db, remembered).values()))) == spans(expected)
