"""Free text to a safe Lucene query for the full-text index.

Users type questions, not Lucene. Every word is kept as a plain term (special characters are
escaped, operators and field syntax lose their meaning), stopwords are dropped because the
index's english analyzer drops them anyway, and the number of terms is capped well under
Lucene's clause limit. An empty result means "no full-text side for this query": callers skip
the index instead of sending a query that would fail or match nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_TERMS = 64
MAX_FILTER_CLAUSES = 16
_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
_WORD = re.compile(r"\w+", re.UNICODE)

# Lucene's EnglishAnalyzer stop set, plus common question words that carry no content.
_STOP_TEXT = """
    a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with what when where which who whom whose why how
    did do does done has have had i you he she we me my your his her our its them than been
    being were would could should can may might shall"""
STOPWORDS = frozenset(_STOP_TEXT.split())


def escape(text: str) -> str:
    """Backslash-escape every character Lucene's classic query parser treats as syntax."""
    return _SPECIAL.sub(r"\\\1", text)


def terms(text: str) -> list[str]:
    """Lowercased content words of `text`, first occurrence order, stopwords and repeats out."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.casefold()):
        word = match.group(0).strip("_")
        if not word or word in STOPWORDS or word in seen:
            continue
        seen[word] = None
        if len(seen) >= MAX_TERMS:
            break
    return list(seen)


def to_lucene(text: str) -> str:
    """An OR query of the escaped content words; '' when nothing is left to search for.

    Words are lowercased so that AND / OR / NOT typed by a user are terms, not operators.
    """
    return " ".join(escape(term) for term in terms(text))


def phrase(text: str) -> str:
    """`text` as a quoted Lucene phrase: inside quotes only backslash and quote are special."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def scoped(
    scope: str,
    lucene: str,
    *,
    tags: Sequence[str] = (),
    partitions: Sequence[str] | None = None,
    field: str = "index_text",
    scope_clause: bool = True,
) -> str:
    """Restrict a terms query to one scope, and to the filters, on fact_fulltext_filtered.

    Each restriction is a required clause that weighs nothing (^0), so scores equal those of
    the plain index; the terms only match the index text. A filter the index answers keeps a
    rare tag's or partition's matches from being crowded out of the index's ranking by the
    rest of the scope. The clauses can only over-match, never miss: the analyzer may split a
    name into several tokens (a phrase can then also match a longer name, or a phrase spanning
    two tags), and a name of stopwords alone makes no clause at all. Cypher checks f.scope and
    every filter exactly. Past MAX_FILTER_CLAUSES tags or partitions the clause is left out
    (the search stays exact, only slower) to keep well under Lucene's clause limit. `field`
    is the text field the terms must match: `index_text`, or `passage_text` on
    fact_passage_fulltext (a fixed name of ours, never user input). Without `scope_clause` the
    scope is left to Cypher: for a scope that holds most of the index the clause narrows little
    and costs much (Lucene then intersects the terms with a posting list as long as the index:
    at 1,000,000 facts in one scope, p95 65-110 ms with it, 18-23 ms without).
    """
    if not lucene:
        return ""
    clauses = [f"+scope:{phrase(scope)}^0"] if scope_clause else []
    clauses += [f"+tags:{phrase(tag)}^0" for tag in tags[:MAX_FILTER_CLAUSES]]
    if partitions and len(partitions) <= MAX_FILTER_CLAUSES:
        either = " ".join(f"partition:{phrase(p)}" for p in partitions)
        clauses.append(f"+({either})^0")
    return " ".join([*clauses, f"+{field}:({lucene})"])
