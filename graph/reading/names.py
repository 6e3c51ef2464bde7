"""Names in a text: the people, places, organisations and products it calls by a capitalised name.

English capitalises names, and also whatever opens a sentence, "I" and its contractions. A name
is a run of capitalised words ("Golden Gate Bridge"), joined by at most two small lower-case
words ("Bank of America", "Lord of the Rings"), with function words and chat fillers trimmed
from its ends ("Thanks Melanie" is Melanie). A single capitalised word that opens a sentence
is a name only when it is no common word: "Caroline went" keeps Caroline, "Started a new job"
drops "Started" (a word ending in -ed, -ing or -ly at a sentence's start is taken for a verb or
an adverb), and "Yesterday I" drops both. Acronyms count ("LGBTQ", "AWS").
"""

from __future__ import annotations

import re

from graph.reading._words import OPENERS, SENTENCE_END, STOPWORDS, WORD

_CONNECTORS = frozenset({"of", "the", "de", "da", "del", "la", "le", "van", "von", "der", "&"})
_PRONOUN_I = re.compile(r"^i(?:['\u2019](?:m|ve|d|ll|s))?$", re.IGNORECASE)
_TITLE = re.compile(r"\b(Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|Mt)\.")
_VERBISH = re.compile(r"(?:ed|ing|ly)$", re.IGNORECASE)
MAX_WORDS = 5
LIMIT = 12


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and not _PRONOUN_I.match(word)


def names(text: str) -> list[str]:
    """The names a text calls by capitalised words, each once, in the order they appear."""
    text = _TITLE.sub(r"\1 ", text)
    starts = {m.end() for m in SENTENCE_END.finditer(text)}
    found: dict[str, list[str]] = {}
    run: list[tuple[str, bool]] = []  # (word, opens a sentence)
    gap: list[str] = []

    def close() -> None:
        if run:
            _keep(run, found)
            run.clear()
        gap.clear()

    previous_end = 0
    for match in WORD.finditer(text):
        word = match.group(0)
        between = text[previous_end : match.start()]
        previous_end = match.end()
        opens = match.start() in starts
        if run and (opens or not _joins(between)):
            close()
        if _capitalised(word):
            if run and gap:
                run.extend((g, False) for g in gap)
            gap.clear()
            run.append((word, opens))
        elif run and word.casefold() in _CONNECTORS and len(gap) < 2:
            gap.append(word)
        else:
            close()
    close()
    # The most often named first, then in order of appearance: a long text keeps `LIMIT`.
    ranked = sorted(found.values(), key=lambda seen: -len(seen))
    return [seen[0] for seen in ranked[:LIMIT]]


def _joins(between: str) -> bool:
    """Whether two words are one name's neighbours: only spaces (or an ampersand) between."""
    return between.strip() in ("", "&")


def _keep(run: list[tuple[str, bool]], found: dict[str, list[str]]) -> None:
    words = [w for w, _ in run]
    opens = bool(run) and run[0][1]
    while words and words[0].casefold().replace("\u2019", "'").split("'")[0] in STOPWORDS:
        words.pop(0)
        opens = False  # what is left no longer opens the sentence
    while words and (words[-1].casefold() in STOPWORDS or words[-1].casefold() in _CONNECTORS):
        words.pop()
    if not words or len(words) > MAX_WORDS:
        return
    if len(words) == 1:
        word = words[0]
        opener = opens and run[0][0] == word and not word.isupper()
        if opener and (_VERBISH.search(word) or word.casefold() in OPENERS):
            return
        if len(word) < 2 or word.casefold() in STOPWORDS:
            return
    name = " ".join(words)
    found.setdefault(name.casefold(), []).append(name)
