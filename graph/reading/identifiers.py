"""Identifiers in a text: URLs, e-mail addresses, file names and paths, code names, versions,
and numbers with their units.

They are what a person searches for verbatim ("the bug in parser.py", "Python 3.12", "the 5 km
run") and what a sentence vector blurs: e5 puts "item 3" and "item 4" closer than two wordings
of one fact. Each is kept as written, case folded, with no plural folding (the entity resolver
would turn "v1.2" into "v1 2"), and masked before names and topics are read so that "main.py"
gives neither the name "main" nor the topic "py".
"""

from __future__ import annotations

import re

_EXTENSIONS = (
    "py|js|jsx|ts|tsx|json|yaml|yml|toml|md|txt|csv|html|css|scss|java|kt|go|rs|rb|php|c|h|"
    "cpp|hpp|cs|sh|sql|xml|ini|cfg|conf|lock|ipynb|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|"
    "mp3|mp4|wav|zip|tar|gz|env|log|cypher|graphql|proto|tf"
)
_UNITS = (
    r"%|percent|km|kms|kilometers?|kilometres?|miles?|mi|m|meters?|metres?|cm|mm|ft|feet|inch(?:es)?|"
    r"kg|kgs|g|grams?|lbs?|pounds?|oz|mg|ml|l|liters?|litres?|gb|mb|kb|tb|gib|mib|ghz|mhz|"
    r"ms|s|sec|secs|seconds?|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|yrs?|"
    r"k|x|usd|eur|gbp|dollars?|euros?|bucks|calories|kcal|steps|reps|sets|pages|words|"
    r"users|people|rows|tokens|requests|rps|qps|fps|dpi|px|°c|°f|degrees"
)

LIMIT = 12
_TOKEN = re.compile(r"\S+")
_EDGES = "\"'`([{<>}]),;:!?."
_KINDS = [
    re.compile(p)
    for p in (
        r"(?:https?://|www\.)\S+",  # a URL
        r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+",  # an e-mail address
        r"(?:[\w.-]*/){2,}[\w.-]*|(?:[\w.-]*/)+[\w.-]+\.\w{1,5}",  # a path
        rf"[\w-]+(?:\.[\w-]+)*\.(?:{_EXTENSIONS})",  # a file name
        r"[A-Za-z_][\w.]*\(\)",  # a function called by name
        r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+",  # a dotted name (os.path)
        r"[a-z]+_[a-z0-9_]+|[a-z]+[A-Z][a-zA-Z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*",  # code
        r"[vV]?\d+(?:\.\d+){1,3}(?:[-.]?[A-Za-z0-9]+)?",  # a version
        r"[$€£]\d[\d,]*(?:\.\d+)?[kKmM]?",  # money
    )
]
# A number and its unit may stand apart ("5 km"): found in the text, not token by token.
_QUANTITY = re.compile(rf"\b\d[\d,]*(?:\.\d+)?\s?(?:{_UNITS})(?!\w)", re.IGNORECASE)


def _could_be(token: str) -> bool:
    """A cheap test before the patterns: most words have no digit, mark or inner capital."""
    return any(c.isdigit() or c in "._/@$€£()" for c in token) or any(
        c.isupper() for c in token[1:]
    )


def _spans(text: str) -> list[tuple[int, int]]:
    """Where the identifiers stand in the text, in order, without overlaps."""
    spans = [m.span() for m in _QUANTITY.finditer(text)]
    taken = {i for start, end in spans for i in range(start, end)}
    for match in _TOKEN.finditer(text):
        token, start = match.group(0), match.start()
        if start in taken:
            continue
        if not token.endswith("()"):
            stripped = token.lstrip(_EDGES)
            start += len(token) - len(stripped)
            token = stripped.rstrip(_EDGES)
        if len(token) < 2 or not _could_be(token):
            continue
        if any(kind.fullmatch(token) for kind in _KINDS):
            spans.append((start, start + len(token)))
    return sorted(spans)


def identifiers(text: str) -> list[str]:
    """The identifiers a text holds, as first written, each once (by case-folded value): the
    `LIMIT` most repeated, in the order they appear."""
    return read_identifiers(text)[0]


def masked(text: str) -> str:
    """The text with each identifier blanked out (the same length, so offsets keep)."""
    return read_identifiers(text)[1]


def read_identifiers(text: str) -> tuple[list[str], str]:
    """`identifiers` and `masked` of one text, its identifiers found once for both."""
    found: dict[str, list[str]] = {}
    parts: list[str] = []
    at = 0
    for start, end in _spans(text):
        value = re.sub(r"(?<=\d),(?=\d)", "", text[start:end])
        value = " ".join(value.split())
        found.setdefault(key(value), []).append(value)
        parts.append(text[at:start])
        parts.append(" " * (end - start))
        at = end
    parts.append(text[at:])
    # The most often written first, then in order of appearance: a long text keeps `LIMIT`.
    ranked = sorted(found.values(), key=lambda seen: -len(seen))
    return [seen[0] for seen in ranked[:LIMIT]], "".join(parts)


def key(identifier: str) -> str:
    """One identifier's key in its scope: case folded, spaces single, nothing else folded."""
    return " ".join(identifier.casefold().split())
