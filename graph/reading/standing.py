"""Standing statements: the user's instructions and preferences that hold until revoked.

"Always include type hints", "from now on answer in French", "I prefer PostgreSQL": a later
request that should honour one seldom shares its words ("write me a parser"), so search alone
does not bring it back. They are recognised when a fact is written, by the patterns below and
without a model, stored with `standing` ("instruction" or "preference") and the :Standing
label, and every search returns the ones that bear on its query in a field of their own
(graph/search/standing.py). A later statement that revokes one ("actually, drop the type
hints", "I no longer prefer X") supersedes it.

The patterns were tuned on the BEAM development chats' instruction- and preference-following
evidence, and checked against the other messages (bench/standing.py): they recognise the
evidence of all 30 instruction-following questions and of 21 of the 30 preference-following
ones (the others' evidence states no preference: "I'm stuck on how to write a cover letter
..."), and fire on 3.8% of the other user messages, nearly all of them standing statements
that no question asks about. On LoCoMo's chit-chat they fire on 1.7% of the turns, 27 of 30
sampled being real preferences ("I love camping"); the misses were "never give up" said to a
friend and "that's what I like to hear". Only what a person says counts: a text spoken by the
assistant ("assistant: always validate your input") is advice, not a standing instruction.
"""

from __future__ import annotations

import enum
import json
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any


class Standing(enum.StrEnum):
    INSTRUCTION = "instruction"
    PREFERENCE = "preference"


# A chat transcript's "speaker: text" label, and the speakers whose words are not the user's.
_SPEAKER = re.compile(r"^\s*([\w .'-]{1,40}?)\s*:\s+")
_NOT_THE_USER = frozenset({"assistant", "ai", "bot", "system", "agent", "model", "tool"})

# Imperatives that set a rule for every later answer. A sentence or clause must open with one
# ("Always ...", "Please never ...", "From now on, ..."), or the text must say so of itself
# ("whenever I ask about X, ..."): "always" inside a sentence ("it always crashes") is a
# description, not an instruction.
_OPENS = r"(?:^|[.!?;\n]\s*|,\s*(?:and\s+|so\s+|but\s+)?)"
# What follows "always" or "never" in a description, a greeting or a past event, not an order:
# "always here to help", "never saw it coming", "always calm".
_NOT_A_VERB = (
    r"(?:been|had|was|were|is|are|am|a|an|the|here|there|good|great|happy|glad|nice|fun|"
    r"calm|so|too|very|really|ready|on|in|at|for|with|one|mind|saw|knew|thought|felt|got|went|"
    r"came|did|said|told|made|[a-z]+ed|[a-z]+ing)\b"
)
_INSTRUCTION = re.compile(
    rf"""
    {_OPENS}(?:please\s+|and\s+|also\s+|so\s+)?(?:always|never)\s+(?!{_NOT_A_VERB})[a-z]+\b
    | \b(?:from\s+now\s+on|going\s+forward|henceforth|in\s+the\s+future|from\s+here\s+on)\b
      [^.!?\n]{{0,80}}\b(?:always|never|please|use|answer|reply|respond|write|give|include|
      format|keep|avoid|don'?t|do\s+not|make|show|call|speak|talk|stop|start|be)\b
    | \b(?:whenever|every\s+time|each\s+time)\s+(?:i|we)\s+(?:ask|request|want|need)\b
      [^.!?\n]{{0,120}}\b(?:always|never|please|make\s+sure|use|include|give|provide|format)\b
    | \bmake\s+sure\s+(?:to\s+|you\s+)?always\b
    | \b(?:i'?ve|i\s+have)\s+been\s+(?:told|instructed|asked)\s+to\s+always\b
    | \bremember\s+to\s+always\b
    | {_OPENS}(?:please\s+)?(?:stop|quit)\s+[a-z]+ing\b
    """,
    re.IGNORECASE | re.VERBOSE,
)

# First-person statements of a lasting taste. "I like that" is a reaction, not a preference:
# like/love/enjoy count only before a gerund or "to" ("I like working in the morning").
_PREFERENCE = re.compile(
    r"""
    \bi\s+(?:really\s+|much\s+|strongly\s+|generally\s+|usually\s+|still\s+|definitely\s+|
      tend\s+to\s+|would\s+|'d\s+|do\s+)?(?:prefer|favou?r)\b(?!\s+(?:is|was)\b)
    | \bi(?:'d|\s+would)\s+(?:much\s+)?rather\b
    | \bmy\s+(?:personal\s+|strong\s+)?preference\s+(?:is|for|would\s+be)\b
    | \bas\s+(?:is\s+)?my\s+preference\b
    | \bi(?:'m|\s+am)\s+(?:a\s+(?:big\s+|huge\s+)?fan\s+of|partial\s+to)\b
    | \bi\s+(?:really\s+|generally\s+|usually\s+)?(?:like|love|enjoy)\s+(?:to\s+\w+|\w+ing\b)
    | \bi\s+(?:really\s+|generally\s+)?(?:dislike|hate|can'?t\s+stand|don'?t\s+like)\s+
      (?:to\s+\w+|\w+ing\b|it\s+when)
    | \bi(?:'m|\s+am)\s+(?:trying|aiming|looking)\s+to\s+keep\s+(?:my|the|it|things)\b
    """,
    re.IGNORECASE | re.VERBOSE,
)

# Revoking an earlier standing statement: "actually, drop the type hints", "forget what I said
# about semicolons", "I no longer prefer tabs", "you can stop using bullet points".
_REVOKE = re.compile(
    r"""
    \b(?:forget|ignore|disregard|scratch)\s+(?:what\s+i\s+said|my\s+(?:earlier\s+|previous\s+)?
      (?:instruction|request|preference|rule)s?|(?:the|that)\s+(?:instruction|rule|preference))\b
    | \bi\s+no\s+longer\s+(?:prefer|want|like|need)\b
    | \bi\s+(?:don'?t|do\s+not)\s+(?:prefer|want|need)\s+[^.!?\n]{0,60}\b(?:any\s*more|anymore)\b
    | \b(?:no\s+need\s+to|(?:you\s+can|please)\s+stop|stop|quit)\s+(?:always\s+)?
      (?:using|adding|including|giving|formatting|writing|answering|replying|providing)\b
    | \b(?:drop|remove|lose)\s+the\s+[^.!?\n]{1,40}?(?:from\s+now\s+on|going\s+forward|anymore|
      any\s+more|rule|requirement|instruction)\b
    | ^\W*actually,?\s+(?:drop|skip|don'?t|do\s+not|no\s+more|never\s+mind)\b
    | \b(?:don'?t|do\s+not)\s+(?:always|bother)\s+\w+
    | \bnever\s+mind\s+(?:the|about|what|my)\b
    | \b(?:changed|change)\s+my\s+mind\s+about\b
    """,
    re.IGNORECASE | re.VERBOSE,
)


# A rule that opens with "stop": "Stop using bullet points" sets one (never use them), though it
# may also withdraw an earlier "always use bullet points" (`revokes`); "you can stop using
# them" only withdraws.
_STOP_RULE = re.compile(r"^\W*(?:please\s+)?(?:stop|quit)\s+[a-z]+ing\b", re.IGNORECASE)


def _withdraws_only(spoken: str) -> bool:
    return _REVOKE.search(spoken) is not None and _STOP_RULE.search(spoken) is None


def speaker(text: str, subject: str | None = None) -> str | None:
    """Who says the text: its transcript label ("user: ...") or else the fact's subject."""
    match = _SPEAKER.match(text)
    if match:
        return match.group(1).strip().casefold()
    return subject.strip().casefold() if subject else None


# Where a string of a JSON document begins: LangGraph's store (and other key-value writers) keep
# a whole value as its JSON text ('{"text": "Always include type hints"}'), whose strings each
# open a clause as a sentence would.
_JSON_STRING_START = re.compile(r'[{\[,:]\s*"')


def _spoken(text: str, subject: str | None) -> str | None:
    """The words to read, without their speaker's label; None when not the user's words."""
    if speaker(text, subject) in _NOT_THE_USER:
        return None
    words = _SPEAKER.sub("", unicodedata.normalize("NFKC", text), count=1).replace("\u2019", "'")
    if words.lstrip()[:1] in ("{", "["):
        words = _JSON_STRING_START.sub("\n", words)
    return words


def patterns(text: str, subject: str | None = None) -> Standing | None:
    """What the patterns alone say of a text (`recognise` without a vector).

    A revocation is neither: it retires one (`revokes`). An instruction wins over a
    preference when a text holds both ("I prefer short answers, so always keep them brief").
    """
    spoken = _spoken(text, subject)
    if spoken is None or _withdraws_only(spoken):
        return None
    return _patterns(spoken)


def _patterns(spoken: str) -> Standing | None:
    if _INSTRUCTION.search(spoken):
        return Standing.INSTRUCTION
    if _PREFERENCE.search(spoken):
        return Standing.PREFERENCE
    return None


def recognise(
    text: str,
    subject: str | None = None,
    *,
    vector: Sequence[float] | None = None,
    embedder: str | None = None,
    model: Classifier | None = None,
) -> Standing | None:
    """Whether a text sets a standing instruction or preference, and which.

    With the `vector` the write path made of it and the id of the `embedder` that made it,
    the classifier (standing.json, trained on that model's vectors) reads it, with what the
    patterns say among its cues, and its kind wins; what it leaves, the patterns may still
    recognise (BEAM's preferences sit inside questions, "I prefer X, how can I ...?", which the
    classifier alone recognised for 5 of 30 questions' evidence and the patterns for 21).
    Without a vector of that model (another model, a supplied vector), the patterns alone. A
    text that is not the user's words, or that revokes, is never one.
    """
    spoken = _spoken(text, subject)
    if spoken is None or _withdraws_only(spoken):
        return None
    classifier = model or shipped()
    if vector and classifier is not None and embedder == classifier.model:
        return classifier.kind(spoken, vector) or _patterns(spoken)
    return _patterns(spoken)


def revokes(text: str, subject: str | None = None) -> bool:
    """Whether a text withdraws an earlier instruction or preference."""
    spoken = _spoken(text, subject)
    return spoken is not None and _REVOKE.search(spoken) is not None


# Words every standing statement and revocation share, which say nothing of what is revoked.
_GENERIC = frozenset(
    [
        "always",
        "never",
        "please",
        "prefer",
        "preference",
        "like",
        "love",
        "want",
        "stop",
        "drop",
        "forget",
        "said",
        "actually",
        "anymore",
        "longer",
        "instead",
        "rather",
        "rule",
        "rules",
        "instruction",
        "ask",
        "asked",
        "when",
        "whenever",
        "about",
        "more",
        "need",
        "remove",
        "just",
        "what",
        "with",
        "that",
        "this",
        "from",
        "have",
        "been",
        "going",
        "forward",
        "include",
        "including",
        "using",
        "user",
        "keep",
        "mind",
    ]
)


def topic_terms(text: str) -> set[str]:
    """The content words of a standing statement or revocation, lightly stemmed: what a
    revocation must share with the statement it revokes (graph/write/remembering.py)."""
    words = re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKC", text).casefold())
    return {_stem(w) for w in words if w not in _GENERIC and len(w) > 3}


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


# What the classifier reads of the words beside the vector: each cue is 1.0 when it matches the
# spoken text. The vector tells a taste or a rule from other talk; these tell whose it is and
# whether it lasts, where e5's vectors of "I'm vegan" and "My brother is vegan" sit together.
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("question", re.compile(r"\?\s*$")),
    ("first_person_open", re.compile(r"^\W*(?:i|i'm|i'd|i've|my|me)\b", re.I | re.M)),
    (
        "other_person_open",
        re.compile(
            r"^\W*(?:(?i:he|she|they|we|our|his|her|their|the|it|most|many|some|"
            r"my\s+(?:sister|brother|mum|mom|dad|father|mother|friend|colleague|manager|boss|"
            r"partner|wife|husband|son|daughter|kids|neighbour|neighbor|teacher|team|old))|"
            r"[A-Z][a-z]+(?:'s)?\s+(?:is|was|loves|likes|hates|prefers|always|never|said|asked|"
            r"can't|wants|would|'d|told))\b",
            re.M,
        ),
    ),
    (
        "past",
        re.compile(
            r"\b(?:yesterday|last\s+(?:week|year|month|night|weekend|saturday|sunday|monday|"
            r"tuesday)|ago|used\s+to|once|when\s+i\s+was|back\s+then|in\s+(?:19|20)\d\d|was|"
            r"were|went|did|had|got|tried|spent|ate|bought|met|called|sent|paid|took|lost|found|"
            r"finished|started|moved|watched|gave|learned|heard|read\s+that|told)\b",
            re.I,
        ),
    ),
    (
        "unsure",
        re.compile(
            r"\b(?:forget|forgot|can\s+never\s+remember|mix\s+up|seem\s+to|wonder|wondered|"
            r"not\s+sure|thinking\s+about|might|hope|need\s+to|should\s+probably|going\s+to|"
            r"planning|looking\s+for|trying\s+to\s+(?:fix|find)|stuck)\b",
            re.I,
        ),
    ),
    (
        "one_off",
        re.compile(
            r"\b(?:this\s+(?:one|once|email|answer|comparison|reply|paragraph|article|file|"
            r"time)|just\s+this|today|tomorrow|tonight|right\s+now|attached|after\s+the\s+call)\b",
            re.I,
        ),
    ),
    (
        "lasting",
        re.compile(
            r"\b(?:every\s+time|whenever|always|never|ever|stop|quit|anymore|any\s+more)\b", re.I
        ),
    ),
    (
        "from_now_on",
        re.compile(
            r"\b(?:from\s+now\s+on|going\s+forward|from\s+here\s+on|henceforth|"
            r"in\s+the\s+future|from\s+today)\b",
            re.I,
        ),
    ),
    ("stop_doing", re.compile(r"\b(?:stop|quit)\s+\w+ing\b", re.I)),
    (
        "taste",
        re.compile(
            r"\b(?:favou?rite|prefer|preferred|preference|love|like|enjoy|hate|dislike|"
            r"can'?t\s+stand|fan\s+of|partial\s+to|rather|allergic|vegan|vegetarian|pescatarian|"
            r"intolerant|gluten|keto|kosher|into|go-to|of\s+choice|supporter|suits?|avoid|"
            r"only\s+drink|don'?t\s+(?:eat|drink|like))\b",
            re.I,
        ),
    ),
    ("you", re.compile(r"\b(?:you|your|me|my)\b", re.I)),
    (
        "imperative_open",
        re.compile(
            r"^\W*(?:please\s+)?(?:always|never|don'?t|do\s+not|stop|quit|use|keep|answer|reply|"
            r"respond|write|give|call|show|add|put|include|explain|format|sign|skip|limit|address|"
            r"remember|make|avoid|note|mention|assume|round|wrap|check|point|start|end|list|"
            r"translate|summari[sz]e|fix|draft|convert|tell|send|could|can|review)\b",
            re.I | re.M,
        ),
    ),
)
CUES = (*(name for name, _ in _CUES), "instruction_pattern", "preference_pattern")


def cues(spoken: str) -> list[float]:
    """The word cues of CUES for the words a user spoke (without a speaker's label)."""
    found = _patterns(spoken)
    return [1.0 if pattern.search(spoken) else 0.0 for _, pattern in _CUES] + [
        1.0 if found is Standing.INSTRUCTION else 0.0,
        1.0 if found is Standing.PREFERENCE else 0.0,
    ]


MODEL_FILE = Path(__file__).with_name("standing.json")
_KINDS = (Standing.INSTRUCTION, Standing.PREFERENCE)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def _dot(weights: Sequence[float], values: Sequence[float]) -> float:
    return sum(w * v for w, v in zip(weights, values, strict=True))


@dataclass(frozen=True)
class Classifier:
    """Two stacked logistic regressions per kind (bench/standing_set.py): one over the vector
    of the stored text, whose log-odds join the word cues (CUES) in the second. A kind is said
    when its probability is the higher and at least `threshold`.

    Each row of `vector_weights` and `cue_weights` opens with its bias."""

    model: str  # the Embedder.id whose vectors it reads
    vector_weights: tuple[tuple[float, ...], ...]  # per kind: bias, one weight per dimension
    cue_weights: tuple[tuple[float, ...], ...]  # per kind: bias, CUES, both vector log-odds
    threshold: float

    def probabilities(self, spoken: str, vector: Sequence[float]) -> tuple[float, ...]:
        odds = [row[0] + _dot(row[1:], vector) for row in self.vector_weights]
        x = cues(spoken) + odds
        return tuple(_sigmoid(row[0] + _dot(row[1:], x)) for row in self.cue_weights)

    def kind(self, spoken: str, vector: Sequence[float]) -> Standing | None:
        """The kind a stored text states, from its spoken words and its vector."""
        if len(vector) != len(self.vector_weights[0]) - 1:
            return None
        p = self.probabilities(spoken, vector)
        best = max(range(len(_KINDS)), key=p.__getitem__)
        return _KINDS[best] if p[best] >= self.threshold else None

    def to_json(self, **about: Any) -> str:
        return json.dumps(
            {
                "kinds": [k.value for k in _KINDS],
                "cues": list(CUES),
                "model": self.model,
                "threshold": self.threshold,
                "cue_weights": [list(row) for row in self.cue_weights],
                "vector_weights": [list(row) for row in self.vector_weights],
                **about,
            }
        )


@cache
def shipped() -> Classifier | None:
    """The classifier trained by bench/standing_set.py --write; None before there is one."""
    if not MODEL_FILE.exists():
        return None
    raw = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    if list(raw["cues"]) != list(CUES) or list(raw["kinds"]) != [k.value for k in _KINDS]:
        raise ValueError(f"{MODEL_FILE.name} was trained on other cues: {raw['cues']}")
    return Classifier(
        model=str(raw["model"]),
        vector_weights=tuple(tuple(float(v) for v in row) for row in raw["vector_weights"]),
        cue_weights=tuple(tuple(float(v) for v in row) for row in raw["cue_weights"]),
        threshold=float(raw["threshold"]),
    )


def standing(
    text: str,
    subject: str | None = None,
    *,
    vector: Sequence[float] | None = None,
    embedder: str | None = None,
) -> Standing | None:
    """The recogniser as the reader (`graph.reading.read`) calls it: `recognise` by the name the
    reader's other parts follow (names, topics, identifiers)."""
    return recognise(text, subject, vector=vector, embedder=embedder)
