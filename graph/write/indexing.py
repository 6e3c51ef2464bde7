"""Derived text of a fact: its content hash, the text that is indexed, the lexical copy.

Contextual indexing ("late-chunk", the default) prefixes the canonical text with a
deterministic situating line (who / which session / when) so a bare turn like "Yes, last
week!" still matches questions about its speaker and date. The canonical text is never altered.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from datetime import datetime

from graph.write.facts import FactInput


def content_hash(text: str) -> str:
    """Exact-duplicate key: the text with case and whitespace folded, hashed."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return hashlib.sha256(folded.encode("utf-8")).hexdigest()


def index_text(fact: FactInput, valid_from: datetime, mode: str) -> str:
    if mode == "off":
        return fact.text
    parts: list[str] = []
    if fact.subject:
        parts.append(f"about {fact.subject}")
    if fact.session_id is not None:
        parts.append(f"session {fact.session_id}")
    parts.append(f"on {valid_from.strftime('%d %B %Y')}")
    return f"[{'; '.join(parts)}] {fact.text}"


# The TEXT index behind substring search (fact_lexical) refuses a value longer than Lucene's
# term limit, 32,766 bytes of UTF-8, and with it the whole write. A text that long (facts hold up
# to 64,000 characters) keeps this much of its beginning in the lexical copy; full-text search
# and the vectors (graph/write/chunks.py) still read all of it.
LEXICAL_MAX_BYTES = 32_000


def lexical_text(fact: FactInput, entity_names: Iterable[str]) -> str:
    """Lowercased haystack for substring search: text, triple, tags and entity names, the
    text shortened to keep the whole within LEXICAL_MAX_BYTES."""
    rest = [fact.subject or "", fact.predicate or "", fact.object or "", *fact.tags]
    rest.extend(entity_names)
    tail = "".join("\n" + p for p in rest if p).casefold()
    text = fact.text.casefold()
    budget = LEXICAL_MAX_BYTES - len(tail.encode("utf-8"))
    return capped(text, budget) + tail


def capped(text: str, budget: int = LEXICAL_MAX_BYTES) -> str:
    """`text`, or as much of its beginning as fits `budget` bytes of UTF-8."""
    encoded = text.encode("utf-8")
    if len(encoded) <= budget:
        return text
    return encoded[: max(0, budget)].decode("utf-8", errors="ignore")
