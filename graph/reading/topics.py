"""Topics in a text: the key phrases a person would file it under ("budget tracker", "hiring
process", "type hints"), and its rarer content words.

A key phrase is a run of content words between the words that carry no topic (function words,
chat fillers, vague adjectives, numbers and punctuation), at most three long (a longer run keeps
its last three: English puts the head noun last, "new personal budget tracker app" is filed under
"budget tracker app"). Words are lower-cased and singular ("hiring processes" is "hiring
process"). A text keeps its phrases of two or three words and then its longest single words,
`LIMIT` in all: length stands in for rarity (Zipf), and the scope's own count of the facts that
mention a topic (its specificity) does the rest at search time.

Written here rather than taken from YAKE (`yake` 0.7): on LoCoMo's development turns YAKE took
about 40 times as long per text, and linked fewer questions to their evidence
(bench/reading.py, bench/README.md "Reading text").
"""

from __future__ import annotations

import re

from graph.reading._words import OPENERS, STOPWORDS, VAGUE, words

LIMIT = 14
PHRASES = 6
MAX_WORDS = 3
_TOKEN = re.compile(r"[a-z][a-z'\u2019-]*[a-z]|[^\sa-z]+")
_VERBISH = re.compile(r"(?:ly|n't|'s|'re|'ve|'ll|'d)$")


# Verbs of taste and opinion, which open a phrase without being part of its topic.
_FEELINGS = words(
    "love loves enjoy enjoyed enjoying hate hated prefer preferred include includes "
    "included build built bring brought consider considering getting"
)


def _singular(word: str) -> str:
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _content(token: str) -> bool:
    return (
        len(token) >= 3
        and token[0].isalpha()
        and token not in STOPWORDS
        and token not in VAGUE
        and token not in OPENERS
        and token not in _FEELINGS
        and not _VERBISH.search(token)
    )


def topics(text: str) -> list[str]:
    """The key phrases of a text, then its longest content words: `LIMIT` at most, each once."""
    runs: list[list[str]] = []
    run: list[str] = []
    for token in _TOKEN.findall(text.casefold().replace("\u2019", "'")):
        if _content(token):
            run.append(_singular(token.strip("-'")))
            continue
        if run:
            runs.append(run)
        run = []
    if run:
        runs.append(run)
    # Each run gives its phrase (its last three words), its head pair and each of its words,
    # so that "support group" and "group" meet "LGBTQ support group".
    phrases: dict[str, int] = {}
    singles: dict[str, int] = {}
    for found in runs:
        if len(found) > 1:
            for phrase in {" ".join(found[-MAX_WORDS:]), " ".join(found[-2:])}:
                phrases[phrase] = phrases.get(phrase, 0) + 1
        for word in found:
            singles[word] = singles.get(word, 0) + 1
    # The most frequent first (a long text keeps its `LIMIT` most repeated), longer first.
    ranked = sorted(phrases, key=lambda p: (-phrases[p], -len(p)))[:PHRASES]
    ranked += sorted(singles, key=lambda w: (-singles[w], -len(w)))[: LIMIT - len(ranked)]
    return ranked
