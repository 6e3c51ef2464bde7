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
import re
import unicodedata


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


def recognise(text: str, subject: str | None = None) -> Standing | None:
    """Whether a text sets a standing instruction or preference, and which.

    A revocation is neither: it retires one (`revokes`). An instruction wins over a
    preference when a text holds both ("I prefer short answers, so always keep them brief").
    """
    spoken = _spoken(text, subject)
    if spoken is None or _REVOKE.search(spoken):
        return None
    if _INSTRUCTION.search(spoken):
        return Standing.INSTRUCTION
    if _PREFERENCE.search(spoken):
        return Standing.PREFERENCE
    return None


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
