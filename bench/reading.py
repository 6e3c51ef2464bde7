"""The reader of text (graph/reading/) on the development sets, without Neo4j or the model:
how long it takes per text, and how well the terms it reads link a question to its evidence,
against the same reader with YAKE's key phrases (`yake` 0.7) in place of its own topics.

For every question with evidence, each row of its conversation is scored as the graph list
scores it (graph/search/graph_list.py, without the spreading): the sum, over the terms the row
shares with the question, of the mention's weight times log(rows / rows mentioning the term).
Reported: `linked` (questions sharing a term with an evidence row), hit@10 and R@10 of that
order, and milliseconds per text.

    .venv/bin/python bench/reading.py                 # LoCoMo dev and BEAM 100K dev
    .venv/bin/python bench/reading.py --yake          # also YAKE's phrases as the topics
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.devsets import Conversation, beam, key, locomo
from graph.reading import Reading, Role, Term, read, terms
from graph.reading.identifiers import masked
from graph.write.entities import DefaultEntityResolver

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"  # as bench/recall.py; --data to change
RESOLVER = DefaultEntityResolver()
Reader = Callable[[str, str | None], list[Term]]


def own(text: str, subject: str | None) -> list[Term]:
    return terms(read(text, subject, with_standing=False), RESOLVER)


def yake_reader() -> Reader:
    import yake  # type: ignore[import-not-found,import-untyped,unused-ignore]

    extractor = yake.KeywordExtractor(lan="en", n=3, top=8)

    def reader(text: str, subject: str | None) -> list[Term]:
        mine = read(text, subject, with_standing=False)
        phrases = [str(k).casefold() for k, _ in extractor.extract_keywords(masked(text))]
        return terms(Reading(mine.names, tuple(phrases), mine.identifiers), RESOLVER)

    return reader


def measure(conversations: list[Conversation], reader: Reader) -> dict[str, Any]:
    texts = 0
    seconds = 0.0
    linked = hits = 0
    recall = 0.0
    asked = 0
    for conversation in conversations:
        row_terms: dict[str, dict[str, float]] = {}
        for row in conversation.rows:
            start = time.perf_counter()
            found = reader(str(row["text"]), row.get("subject"))
            seconds += time.perf_counter() - start
            texts += 1
            mine = row_terms.setdefault(key(row.get("session_id"), row.get("turn")), {})
            for term in found:
                mine[term.canonical] = max(mine.get(term.canonical, 0.0), term.weight)
        df: Counter[str] = Counter(t for ts in row_terms.values() for t in ts)
        postings: dict[str, list[str]] = defaultdict(list)
        for row_key, ts in row_terms.items():
            for t in ts:
                postings[t].append(row_key)
        n = len(row_terms)
        for question in conversation.questions:
            if not question.gold:
                continue
            asked += 1
            wanted = {t.canonical: t.weight for t in reader(question.text, None)}
            scores: dict[str, float] = defaultdict(float)
            for t, weight in wanted.items():
                idf = math.log(n / df[t]) if df[t] else 0.0
                for row_key in postings.get(t, ()):
                    scores[row_key] += weight * row_terms[row_key][t] * idf
            if any(g in scores for g in question.gold):
                linked += 1
            top = [k for k, _ in sorted(scores.items(), key=lambda kv: -kv[1])[:10]]
            found_gold = len(question.gold & set(top))
            hits += found_gold > 0
            recall += found_gold / len(question.gold)
    return {
        "questions": asked,
        "linked": round(linked / asked, 3),
        "hit@10": round(hits / asked, 3),
        "R@10": round(recall / asked, 3),
        "ms_per_text": round(1000 * seconds / texts, 3),
        "texts": texts,
    }


def roles(conversations: list[Conversation]) -> dict[str, float]:
    """Mentions per text, by role."""
    count: Counter[str] = Counter()
    texts = 0
    for conversation in conversations:
        for row in conversation.rows:
            texts += 1
            count.update(t.role.value for t in own(str(row["text"]), row.get("subject")))
    return {role.value: round(count[role.value] / texts, 2) for role in Role}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--yake", action="store_true", help="also YAKE's phrases as topics")
    parser.add_argument("--limit", type=int, default=0, help="first N conversations of each")
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    args = parser.parse_args()
    sets = {
        "locomo-dev": locomo(args.data / "locomo" / "locomo-dev.json", args.limit),
        "beam-dev": beam(args.data / "beam" / "100K", args.limit, max_chars=64_000),
    }
    readers: dict[str, Reader] = {"own": own}
    if args.yake:
        readers["yake"] = yake_reader()
    for name, conversations in sets.items():
        print(name, "mentions per text", roles(conversations))
        for label, reader in readers.items():
            print(f"  {label:5}", measure(conversations, reader))


if __name__ == "__main__":
    main()
