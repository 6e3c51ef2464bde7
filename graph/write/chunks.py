"""Long texts, whole: a text longer than the model's window is embedded in overlapping chunks.

The model reads 512 tokens (about 2,000 characters of English) and drops the rest, so the end
of a long message was not searchable by vector. Every path that embeds a fact for storage
(remember, remember_many, import, `embed --missing`, reembed, the consolidator) comes through
`embed` here: the fact's text is cut into the model's windows (graph/platform/windows.py), each
window embedded with the fact's situating line before it and its notes after it (the context
of its index text, graph/write/indexing.py), so a later window still says who spoke, when.

The first window's vector is the fact's own `embedding`, as before; for a text that fits, it
is exactly the vector of the index text it always was, and nothing else is made. The later
windows are chunks, `(:Chunk {fact_id, scope, ord, start, end, embedding})-[:CHUNK_OF]->(:Fact)`
(`start`/`end`: character offsets in the fact's text; `ord` from 1), in their scope's chunk
vector index (graph/storage/vector_shards.py). Search scores a fact by the best of its own
vector and its chunks' (cypher/search_candidates.cypher), each chunk through its fact's filters,
so a forgotten or superseded fact's chunks never surface; purging a fact deletes them.

A text may also be cut into sections by the record separator U+001E (`sections`): each
section's windows are cut on their own, so each section has a vector of its own (the first
section's first window is the fact's own vector, the others are chunks) and search scores the
fact by its best section. LangGraph's store writes each indexed field of an item as a section.

Full-text is not chunked: the full-text index holds the whole index text. A passage (graph/
write/passages.py) is the other way round: a short turn read with its neighbours' text, for
full-text only; a chunk is a part of one long text, for vectors only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from neo4j import ManagedTransaction

from graph.platform.embedding import Embedder
from graph.storage import vector_shards
from graph.storage.db import run
from graph.storage.wire import Rows, Vector


@dataclass(frozen=True)
class Chunk:
    """A window of a fact's text after the first: where it lies in the text, and its vector."""

    ord: int
    start: int
    end: int
    embedding: list[float]


@dataclass(frozen=True)
class Embedded:
    """What a fact's text embeds to: its own vector (the first window) and its chunks."""

    vector: list[float]
    chunks: tuple[Chunk, ...] = ()


def context_of(index_text: str, text: str) -> tuple[str, str] | None:
    """The context around the text in its index text: (before, after), or None when the index
    text does not hold the text (an imported index text of its own), which is then embedded
    whole, as before chunks."""
    at = index_text.find(text)
    if at < 0 or not text:
        return None
    return index_text[:at], index_text[at + len(text) :]


# Cuts a text into sections, each embedded on its own (U+001E, the ASCII record separator).
SECTION = "\x1e"
# Ends the embedded part of a text (U+001F, the ASCII unit separator): what follows is kept in
# the text (and its full-text index) but in no section's vector. A store that makes its texts
# unique with a digest puts it there: at the end of the last field, it sank that field's vector
# ("bbb" scored 0.729 as the first of two fields, 0.276 as the second).
TAIL = "\x1f"
# Sections past this many are embedded together as the last one: each section is at least one
# model pass, and a 64,000-character text of one-letter sections would otherwise cost 32,000
# (a long text without sections makes about 32 windows).
MAX_SECTIONS = 32


def sections(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each section of a text: the parts between SECTION characters that
    hold more than blanks (at most MAX_SECTIONS); the whole text when it has none. A store
    whose items have several searchable fields (LangGraph's `index` fields) writes each as a
    section, so that each is a vector of its own and the item scores by its best field, not
    by their blend. A tail after TAIL is in no section."""
    if SECTION not in text:
        return [(0, len(text))]
    body = text.split(TAIL, 1)[0]
    found: list[tuple[int, int]] = []
    start = 0
    for part in body.split(SECTION):
        if part.strip():
            found.append((start, start + len(part)))
        start += len(part) + 1
    if len(found) > MAX_SECTIONS:
        found[MAX_SECTIONS - 1 :] = [(found[MAX_SECTIONS - 1][0], found[-1][1])]
    return found or [(0, len(text))]


def windows(embedder: Embedder, index_text: str, text: str) -> list[tuple[int, int, str]]:
    """A fact's windows: (start, end) in its text and the text embedded for each, the context
    of its index text around it; each section (`sections`) is cut on its own, and one window,
    the index text itself, is made when the text fits."""
    context = context_of(index_text, text)
    spans: list[tuple[int, int]] = []
    if context is not None:
        for start, end in sections(text):
            cut = embedder.windows(text[start:end], "".join(context))
            spans += [(start + a, start + b) for a, b in cut]
    if len(spans) <= 1:
        return [(0, len(text), index_text)]
    before, after = context or ("", "")
    return [(start, end, before + text[start:end] + after) for start, end in spans]


def embed(
    embedder: Embedder, items: Sequence[tuple[str, str]], *, first: bool = True
) -> list[Embedded]:
    """Each (index text, text) embedded: every window of every item in one model pass
    (`Embedder.embed`, shortest first), so a batch of long texts batches its chunks too.

    `first=False` leaves the first window out (its `vector` comes back empty): for a fact whose
    own vector this model made already (an import of an export), only its chunks are missing.
    """
    plans = [windows(embedder, index_text, text) for index_text, text in items]
    texts = [embedded for plan in plans for _, _, embedded in plan[0 if first else 1 :]]
    vectors = iter(embedder.embed(texts))
    out: list[Embedded] = []
    for plan in plans:
        own = next(vectors) if first else []
        chunks = tuple(
            Chunk(n, start, end, next(vectors)) for n, (start, end, _) in enumerate(plan[1:], 1)
        )
        out.append(Embedded(own, chunks))
    return out


def row(fact_id: str, scope: str, chunks: Iterable[Chunk]) -> dict[str, Any]:
    """The parameters `write` takes for one fact's chunks."""
    return {
        "fact_id": fact_id,
        "shard_label": vector_shards.chunk_label(scope),
        "chunks": [
            {"ord": c.ord, "start": c.start, "end": c.end, "embedding": Vector(c.embedding)}
            for c in chunks
        ],
    }


def write(tx: ManagedTransaction, rows: Iterable[dict[str, Any]], *, replace: bool = False) -> int:
    """Give each fact of `rows` (see `row`) its chunks, inside the caller's transaction; the one
    place chunk nodes are written. `replace`: a fact's earlier chunks go first (reembed, the
    consolidator's new index text); then a row without chunks only removes them. Without it,
    rows without chunks are not sent (a new fact has none yet). Returns the chunks written."""
    wanted = [r for r in rows if replace or r["chunks"]]
    if not wanted:
        return 0
    records = run(tx, "chunks_write", rows=Rows(wanted), replace=replace)
    return int(records[0]["chunks"]) if records else 0
