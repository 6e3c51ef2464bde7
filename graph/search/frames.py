"""A question's frame: the words that say what kind of answer is wanted, not what it is about.

"Can you list the order in which I brought up different aspects of my budget tracker across our
conversations? Mention ONLY and ONLY five items." is about the budget tracker; the rest asks for
an ordering. Both lists read the whole text: full-text matches "order", "conversations" and
"items" in any message, and the frame weighs on the query's vector as much as the topic does, so
every such question looks alike and finds the messages most like the frame. The lists are asked
with the topic alone when the question carries one of these frames (an ordering, a summary, a
span of conversations); any other query is asked as it is.

Measured on the development sets (bench/README "The story and the asker"): no LoCoMo
question carries a frame; on BEAM's event-ordering and summarization questions the top 10 held
more of the evidence (figures there).
"""

from __future__ import annotations

import re

_FLAGS = re.IGNORECASE
# What marks a question as framed: it asks for an order, a summary, a count of items, or spans
# the conversations. Without one of these, nothing is taken out.
_SUMMARY = re.compile(
    r"\b(?:(?:a|an)\s+(?:(?:comprehensive|complete|clear|brief|short|detailed|quick|full)\s+)?"
    r"(?:summary|overview)\s+of|summari[sz]e)\b",
    _FLAGS,
)
_MARKERS = [
    _SUMMARY,
    *(
        re.compile(p, _FLAGS)
        for p in (
            r"\bmention\s+only(?:\s+and\s+only)?\s+\w+\s+items?\b\.?",
            r"\b(?:the\s+(?:order|sequence)\s+in\s+which|in\s+what\s+order|"
            r"in\s+(?:chronological\s+)?order)\b",
            r"\b(?:throughout|across|over|during|in)\s+(?:all\s+)?(?:of\s+)?(?:our|my|the|these)\s+"
            r"(?:conversations?|discussions?|chats?|sessions?|requests?|questions?|messages?|talks?)\b",
        )
    ),
]
# Taken out of a framed question, with the markers: the polite opening, the verbs of telling,
# and the phrases that say the answer is spread out.
_FRAME = _MARKERS + [
    re.compile(p, _FLAGS)
    for p in (
        r"^\s*(?:can|could|would|will)\s+you\s+(?:please\s+)?",
        r"\b(?:list|walk\s+me\s+through|tell\s+me|give\s+me|provide|remind\s+me\s+of|describe)\s+"
        r"(?:in\s+order\s+)?(?:how\b)?",
        r"\bi\s+(?:first\s+)?(?:brought\s+up|mentioned|discussed|talked\s+about|raised)\b",
        r"\b(?:different|various)\s+(?:aspects|concepts|parts|topics|ways|things|areas)\s+"
        r"(?:of|related\s+to|about)\b",
        r"\bover\s+time\b",
        r"\bso\s+far\b",
        r"\bwe'?ve\s+discussed\b",
    )
]
_SPACES = re.compile(r"\s+")
_LOOSE_PUNCTUATION = re.compile(r"\s+([,;:?.!])")
_DANGLING = re.compile(r"[,;:]+(?=[?.!]|$)")
# A topic holds at least this many words of three letters or more, other than these.
MIN_TOPIC_WORDS = 2
_NOT_A_TOPIC = frozenset({"our", "the", "and", "how", "what", "you", "all", "has", "have", "did"})
_WORD = re.compile(r"\w{3,}")


def summary(query: str) -> bool:
    """Whether the question asks for a summary: its answer is the assistant's replies as much as
    the user's messages (half of the evidence of BEAM's summaries), so it names no asker
    (graph/search/subjects.py)."""
    return _SUMMARY.search(query) is not None


def topic(query: str) -> str:
    """The query without its frame when it carries one; else the query itself. A frame that
    leaves fewer than two words to look for (a question that is nearly all frame: "summarize
    our conversations") is kept whole."""
    if not any(marker.search(query) for marker in _MARKERS):
        return query
    out = query
    for pattern in _FRAME:
        out = pattern.sub(" ", out)
    out = _DANGLING.sub("", _LOOSE_PUNCTUATION.sub(r"\1", _SPACES.sub(" ", out))).strip(" ,;:")
    words = [w for w in _WORD.findall(out.casefold()) if w not in _NOT_A_TOPIC]
    return out if len(words) >= MIN_TOPIC_WORDS else query
