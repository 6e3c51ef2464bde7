"""A fact's relevance to a query means the same in every store: other scopes' data never moves
it, and in a small scope the right answer to a paraphrase clears the threshold the docs use."""

from __future__ import annotations

import pytest

from graph.memory import Memory
from graph.search import SearchOptions
from graph.search.types import Hit

ALICE = [
    "Alice plays tennis on Sundays",
    "Alice works as a nurse in Leeds",
    "Alice has two cats named Pip and Max",
]
# The docs' LangGraph example (docs/langgraph.md) thresholds the store's search at this.
DOCS_MIN_SCORE = 0.3


def hit_for(memory: Memory, scope: str, query: str, text: str) -> Hit:
    result = memory.search(scope, query, options=SearchOptions.build(track_access=False))
    (hit,) = [h for h in result.hits if h.fact.text == text]
    return hit


def test_another_scopes_facts_leave_a_facts_relevance_where_it_was(
    memory: Memory, scope: str, other_scope: str
) -> None:
    """Lucene's BM25 weighs a word by every scope's facts: filling another scope with facts
    about Alice moved the full-text score; the relevance stays within 0.02."""
    for text in ALICE:
        memory.remember(scope, {"text": text})
    query = "what sport does Alice play"
    before = hit_for(memory, scope, query, ALICE[0])
    # Another tenant's facts, full of the query's words; one shared vector keeps them cheap.
    vector = list(memory.embedder.embed(["Alice plays chess"])[0])
    crowd = [
        {"text": f"Alice plays a sport with team {i} after work", "embedding": vector}
        for i in range(400)
    ]
    memory.remember_many(other_scope, crowd, pipeline=False)
    after = hit_for(memory, scope, query, ALICE[0])
    raw = {s.list: s.score for s in before.sources}, {s.list: s.score for s in after.sources}
    assert raw[0]["fulltext"] != pytest.approx(raw[1]["fulltext"], abs=0.05)  # BM25 moved
    assert after.relevance == pytest.approx(before.relevance, abs=0.02)


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("which game does Alice take part in at weekends?", ALICE[0]),
        ("what is Alice's job?", ALICE[1]),
        ("does Alice own any pets?", ALICE[2]),
    ],
)
def test_the_answer_to_a_paraphrase_clears_the_docs_threshold(
    memory: Memory, scope: str, query: str, answer: str
) -> None:
    memory.remember_many(scope, [{"text": text} for text in ALICE])
    options = SearchOptions.build(
        min_score=DOCS_MIN_SCORE, fusion={"method": "model"}, track_access=False
    )
    result = memory.search(scope, query, options=options)
    assert result.hits and result.hits[0].fact.text == answer
