"""The cheap local difficulty gate: which queries are worth more than one retrieval pass.

A simple lookup ("where does Jon work?") is answered by one pass; a query that hangs one
thing off another ("what did the person I met in Tbilisi recommend?") needs a first pass to
resolve the inner reference before the outer one can be found. The gate looks for that shape
with words alone, so it costs microseconds and no model.
"""

from __future__ import annotations

import re

from graph.search.lucene import STOPWORDS

_WORD = re.compile(r"[\w']+", re.UNICODE)
# Relative clauses and indirect references: the marks of a question about a thing described
# through another thing.
_INDIRECT = re.compile(
    r"\b(the (person|one|guy|woman|man|friend|place|book|thing|restaurant|city)\b"
    r"|who (i|we|you|he|she|they)\b|that (i|we|you|he|she|they)\b|whom\b|whose\b"
    r"|where (i|we|you|he|she|they)\b|which (i|we|you|he|she|they)\b"
    r"|before|after|both|compare|same .* as|relationship between)",
    re.IGNORECASE,
)
HARD_CONTENT_WORDS = 7


def content_words(query: str) -> list[str]:
    return [w for w in _WORD.findall(query.casefold()) if w not in STOPWORDS and len(w) > 1]


def is_hard(query: str) -> bool:
    """True when the query is a loop candidate: indirect references or many content words."""
    return bool(_INDIRECT.search(query)) or len(content_words(query)) >= HARD_CONTENT_WORDS
