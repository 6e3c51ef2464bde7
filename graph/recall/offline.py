"""A grader that needs no model: coverage of the query by the hits, and score margins.

A retrieved set is judged sufficient when its top hits mention most of the query's content
words and entities; otherwise the reformulation keeps the uncovered words and adds the
entities the hits did surface, which is how a second pass reaches the fact one hop away
("the person I met in Tbilisi" -> "Nino recommend").
"""

from __future__ import annotations

from collections.abc import Sequence

from graph.recall.gate import content_words
from graph.recall.providers import Grade
from graph.write.entities import normalise
from graph.write.facts import Fact

SUFFICIENT_COVERAGE = 0.75
LOOKED_AT = 5


class OfflineGrader:
    def __init__(self, threshold: float = SUFFICIENT_COVERAGE, looked_at: int = LOOKED_AT) -> None:
        self.threshold = threshold
        self.looked_at = looked_at

    def grade(self, query: str, facts: Sequence[Fact]) -> Grade:
        wanted = {normalise(w) for w in content_words(query)} - {""}
        if not facts:
            return Grade(False, 0.0, "nothing retrieved", query)
        if not wanted:
            return Grade(True, 1.0, "no content words to cover")
        top = facts[: self.looked_at]
        seen: set[str] = set()
        for fact in top:
            haystack = " ".join(
                x for x in (fact.text, fact.subject, fact.object, " ".join(fact.tags)) if x
            )
            seen |= {normalise(w) for w in content_words(haystack)}
        covered = wanted & seen
        coverage = len(covered) / len(wanted)
        if coverage >= self.threshold:
            return Grade(True, coverage, f"top hits cover {coverage:.0%} of the query")
        missing = [w for w in content_words(query) if normalise(w) not in covered]
        bridges = [
            name
            for fact in top[:2]
            for name in (fact.subject, fact.object)
            if name and normalise(name) not in wanted
        ]
        reformulation = " ".join(dict.fromkeys([*bridges, *missing])) or None
        return Grade(
            False,
            coverage,
            f"top hits cover {coverage:.0%} of the query; missing: {', '.join(missing)}",
            reformulation,
        )
