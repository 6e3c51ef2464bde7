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


def lexical_text(fact: FactInput, entity_names: Iterable[str]) -> str:
    """Lowercased haystack for substring search: text, triple, tags and entity names."""
    pieces = [fact.text, fact.subject or "", fact.predicate or "", fact.object or ""]
    pieces.extend(fact.tags)
    pieces.extend(entity_names)
    return "\n".join(p for p in pieces if p).casefold()
