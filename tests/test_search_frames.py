"""Questions about a conversation: a framed question ("list the order in which I brought up
...", "summarise how ...") asks the lists with its topic, and a question in the first person
prefers the asker's own messages of a transcript to the assistant's replies. Real Neo4j, real
model."""

from __future__ import annotations

import pytest

from graph.memory import Memory
from graph.search.frames import summary, topic
from graph.search.subjects import first_person, named

ORDER = (
    "Can you list the order in which I brought up different aspects of my budget tracker "
    "throughout our conversations, in order? Mention ONLY and ONLY three items."
)


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        (ORDER, "my budget tracker?"),
        (
            "Can you give me a comprehensive summary of how my weather app project has "
            "progressed so far?",
            "my weather app project has progressed?",
        ),
        (
            "How many new columns did I want to add to the transactions table across my requests?",
            "How many new columns did I want to add to the transactions table?",
        ),
        # No frame: asked as it is, word for word.
        ("When did Caroline go to the LGBTQ support group?", None),
        ("Can you help me set up caching for my API?", None),
        ("What order did the team ship the features in?", None),
        # A frame with no topic left: the question stays whole.
        ("Summarize our conversations.", None),
    ],
)
def test_a_framed_question_is_asked_by_its_topic(question: str, asked: str | None) -> None:
    assert topic(question) == (asked if asked is not None else question)


def test_a_summary_is_told_apart_for_it_wants_both_sides_of_the_conversation() -> None:
    assert summary("Can you give me a comprehensive summary of how my app has progressed?")
    assert summary("Summarize how the deployment plan evolved.")
    assert not summary(ORDER)
    assert not summary("What did I say about the summary page?")


def test_a_first_person_question_names_the_user_of_a_transcript() -> None:
    speakers = ["user", "assistant", "Caroline"]
    assert first_person("What did I decide about the schema?")
    assert named("What did I decide about the schema?", speakers) == {"user"}
    assert named("what database does my app use", speakers) == {"user"}
    assert named("What did Caroline say?", speakers) == {"caroline"}
    assert named("What did the assistant recommend?", speakers) == {"assistant"}
    assert named("What did I decide?", speakers, asker=False) == set()
    assert named("Where is the schema kept?", speakers) == set()


STORY = [
    ("user", "user: I started the budget tracker with a transactions table in SQLite.", 1),
    ("user", "user: Next I added login with password hashing to the budget tracker.", 2),
    ("user", "user: Finally I deployed the budget tracker to a small VPS with nginx.", 3),
]
# Messages that share the frame's words, not its topic.
FRAME_NOISE = [
    (
        "assistant",
        "assistant: Here is the order of the items in our conversations: mention "
        "only three items, and list them throughout in order.",
        1,
    ),
    ("user", "user: Which items did we bring up in our conversations about the garden?", 2),
]


def _write(memory: Memory, scope: str, rows: list[tuple[str, str, int]]) -> dict[str, str]:
    ids = {}
    for speaker, text, session in rows:
        fact = memory.remember(
            scope, {"text": text, "subject": speaker, "session_id": str(session), "turn": 1}
        )
        ids[text] = fact.id
    return ids


def test_the_lists_read_the_topic_and_find_the_story(memory: Memory, scope: str) -> None:
    ids = _write(memory, scope, STORY + FRAME_NOISE)
    story = {ids[text] for _, text, _ in STORY}
    framed = memory.search(scope, ORDER, top_k=3, prev_turns=0, next_turns=0)
    assert {h.fact.id for h in framed.hits} == story
    assert "budget" in framed.lucene and "order" not in framed.lucene
    whole = memory.search(scope, ORDER, top_k=3, frames=False)
    assert "order" in whole.lucene and "items" in whole.lucene


def test_a_first_person_question_puts_the_users_own_words_first(memory: Memory, scope: str) -> None:
    said = "user: I moved the budget tracker's database from SQLite to PostgreSQL this week."
    reply = (
        "assistant: Moving the budget tracker's database from SQLite to PostgreSQL is a good "
        "step: PostgreSQL handles the budget tracker's concurrent writes, and the database "
        "migration from SQLite keeps your tables."
    )
    ids = _write(memory, scope, [("user", said, 1), ("assistant", reply, 1)])
    question = "Which database did I move my budget tracker to?"
    asked = memory.search(scope, question, top_k=2)
    assert [h.fact.id for h in asked.hits] == [ids[said], ids[reply]]
    plain = memory.search(scope, question, top_k=2, asker=False)
    # The asker weighs in the order alone: a hit's relevance is the same either way.
    assert {h.fact.id: h.relevance for h in asked.hits} == pytest.approx(
        {h.fact.id: h.relevance for h in plain.hits}
    )
    before = {h.fact.id: h.score for h in plain.hits}
    assert asked.hits[0].score > before[ids[said]]
