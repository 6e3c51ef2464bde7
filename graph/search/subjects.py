"""The subject a query is about: a boost for the facts of the one subject a question names.

Questions to a memory usually name whom they are about ("When did Caroline move?"), and the
facts that answer them are mostly that subject's own (on LoCoMo 96% of the evidence turns of a
question naming one speaker are that speaker's). Full-text and vector scores both see the name
as one word among many; the boost makes it count. A query naming two or more subjects of the
candidates ("what did Caroline tell Melanie?") gets no boost: either could hold the answer.

A question in the first person ("what did I decide about the schema?", "my budget app") names
the person asking: in a transcript stored with its speakers' roles, the `user`'s (or `human`'s)
messages. On BEAM's development chats 78% of the evidence of such questions is the user's own
messages (93% but for summaries), while a third to a half of what the lists found was the
assistant's longer replies, which restate the user's words among many others (bench/README
"The story and the asker").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

MAX_NAME_WORDS = 4
_WORD = re.compile(r"\w+", re.UNICODE)
# The words by which a question names its asker, and the subjects that are the asker in a
# transcript stored with roles (mem0's and LangChain's names for the person's messages).
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
ASKER_SUBJECTS = frozenset({"user", "human"})


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


@lru_cache(maxsize=4096)
def subject_key(subject: str) -> str:
    """A subject as its folded words. Cached: a search's ~100 candidates name a handful of
    subjects, and folding each candidate's twice was a tenth of the ranking's time."""
    return " ".join(_words(subject))


@lru_cache(maxsize=256)
def _grams(query: str) -> frozenset[str]:
    """The query's runs of up to MAX_NAME_WORDS folded words. Cached: a search asks twice (the
    boost, and each hit's relevance)."""
    words = _words(query)
    return frozenset(
        " ".join(words[i : i + n])
        for n in range(1, MAX_NAME_WORDS + 1)
        for i in range(len(words) - n + 1)
    )


def first_person(question: str) -> bool:
    """Whether a question speaks of its asker ("I", "my", "me")."""
    return not FIRST_PERSON.isdisjoint(_grams(question))


def named(query: str, subjects: Iterable[str | None], asker: bool | None = None) -> set[str]:
    """The subjects (as folded word sequences) that the query names as whole words, and the
    user's role when the question names its asker: `asker`, or (None) when the query itself
    speaks in the first person. A search whose lists read the question's topic
    (graph/search/frames.py) tells from the whole question."""
    grams = _grams(query)
    if asker is None:
        asker = first_person(query)
    out: set[str] = set()
    for subject in subjects:
        if subject:
            key = subject_key(subject)
            if key and (key in grams or (asker and key in ASKER_SUBJECTS)):
                out.add(key)
    return out


def boosted(
    query: str,
    subjects: Sequence[str | None],
    relevances: Sequence[float],
    boost: float,
    asker: bool | None = None,
) -> list[float]:
    """Relevances (0..1) with `boost` added where the subject is the one the query names,
    scaled back into 0..1; unchanged when the query names no subject, or several."""
    if boost <= 0:
        return list(relevances)
    found = named(query, subjects, asker)
    if len(found) != 1:
        return list(relevances)
    (name,) = found
    return [
        (rel + (boost if subject and subject_key(subject) == name else 0.0)) / (1.0 + boost)
        for subject, rel in zip(subjects, relevances, strict=True)
    ]
