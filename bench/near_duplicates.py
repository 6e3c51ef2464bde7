"""Calibrates the write pipeline's near-duplicate cosine for an embedding model.

    .venv/bin/python bench/near_duplicates.py                       # the default model
    FACTGRAPH_MODEL=local/all-MiniLM-L6-v2-int8 .venv/bin/python bench/near_duplicates.py

Cosines of different models are not on one scale: e5-small-v2 puts "I like cats" and "I like
dogs" far closer than MiniLM does. This bench embeds labelled pairs the way `remember` embeds a
fact (its index text: the situating prefix, then the text) and prints, per threshold, how many
restatements of one fact would be caught (they should be) and how many different facts would be
folded into an older one (they must not be), with and without the pipeline's word-overlap guard
(graph/write/pipeline.py `same_wording`: most words shared, the same numbers). The threshold in
graph/platform/embedding.py KNOWN_MODELS keeps every restatement caught with the guard on while
folding
as few different facts as the higher thresholds do.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.write.facts import FactInput
from graph.write.indexing import index_text
from graph.write.pipeline import same_wording

# The same fact said again: punctuation, case, a filler word, a contraction, word order.
SAME = [
    (
        "Caroline went to the LGBTQ support group yesterday.",
        "Caroline went to the LGBTQ support group yesterday!!",
    ),
    ("Caroline went hiking in the mountains.", "Caroline went hiking in the mountains"),
    ("Melanie moved from Sweden four years ago.", "Melanie moved from Sweden 4 years ago."),
    ("Jon lost his job as a banker.", "Jon lost his job as a banker!"),
    ("Gina opened an online clothing store.", "gina opened an online clothing store"),
    ("Nate won his first video game tournament.", "Nate won his very first video game tournament."),
    ("John's car broke down on his way to work.", "John's car broke down on the way to work."),
    ("Maria volunteers at a homeless shelter.", "Maria volunteers at the homeless shelter."),
    ("Tim is writing a fantasy novel.", "Tim is writing a fantasy novel :)"),
    ("Joanna has a peanut allergy.", "Joanna has got a peanut allergy."),
    ("Audrey adopted two puppies last month.", "Audrey adopted 2 puppies last month."),
    ("Evan started painting landscapes.", "Evan has started painting landscapes."),
    ("Sam is training for a marathon in May.", "Sam's training for a marathon in May."),
    ("Deborah teaches yoga on the beach.", "Deborah teaches yoga at the beach."),
    ("Andrew likes hiking with his dog.", "Andrew likes to go hiking with his dog."),
    ("The meeting was moved to Friday.", "The meeting was moved to Friday!"),
    ("Calvin bought a vintage guitar.", "Calvin bought a vintage guitar, finally."),
    ("Dave fixed up an old Mustang.", "Dave fixed up an old mustang."),
    ("James plays the violin in an orchestra.", "James plays violin in an orchestra."),
    ("Lisa's favourite food is sushi.", "Lisa's favorite food is sushi."),
]

# Different facts worded alike: one content word, a number, a negation, a name, a direction.
DIFFERENT = [
    ("I like cats.", "I like dogs."),
    ("Melanie moved from Sweden.", "Melanie moved to Sweden."),
    (
        "Caroline went to the support group yesterday.",
        "Melanie went to the support group yesterday.",
    ),
    ("Jon lost his job as a banker.", "Jon got a job as a banker."),
    ("Gina opened a clothing store.", "Gina closed her clothing store."),
    ("Nate won the tournament.", "Nate lost the tournament."),
    ("John's car broke down on Monday.", "John's car broke down on Friday."),
    ("Maria has two kids.", "Maria has three kids."),
    ("Tim is reading a fantasy novel.", "Tim is writing a fantasy novel."),
    ("Joanna is allergic to peanuts.", "Joanna is allergic to cats."),
    ("Audrey adopted a puppy.", "Audrey adopted a kitten."),
    ("Evan likes painting.", "Evan hates painting."),
    ("Sam runs every morning.", "Sam runs every evening."),
    ("Deborah lives in Paris.", "Deborah lives in Rome."),
    ("Andrew is vegetarian.", "Andrew is not vegetarian."),
    ("The meeting is on Tuesday.", "The meeting is on Thursday."),
    ("Calvin plays the guitar.", "Calvin plays the piano."),
    ("Dave drives a red car.", "Dave drives a blue car."),
    ("James works at a hospital.", "James works at a school."),
    ("Lisa's favourite food is sushi.", "Lisa's favourite food is pizza."),
    ("Yes, definitely!", "No, never."),
    ("Thanks so much!", "Thanks, see you soon!"),
    ("Grocery item number 3: oat flakes", "Grocery item number 4: oat flakes"),
    ("Maria has 2 kids.", "Maria has 3 kids."),
    ("The flight leaves at 7 pm.", "The flight leaves at 9 pm."),
    ("Jon ran 5 km today.", "Jon ran 10 km today."),
]

THRESHOLDS = (0.90, 0.925, 0.95, 0.96, 0.965, 0.97, 0.975, 0.98, 0.985, 0.99)


def cosines(embedder: Embedder, pairs: list[tuple[str, str]]) -> list[float]:
    when = datetime(2026, 11, 25, tzinfo=UTC)
    texts = [index_text(FactInput(text=t), when, "late-chunk") for pair in pairs for t in pair]
    vectors = embedder.embed(texts)
    return [
        sum(x * y for x, y in zip(vectors[i], vectors[i + 1], strict=True))
        for i in range(0, len(vectors), 2)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    embedder = Embedder(Settings.from_env())
    same, different = cosines(embedder, SAME), cosines(embedder, DIFFERENT)
    guard = [same_wording(a, b) for a, b in DIFFERENT]
    kept = [same_wording(a, b) for a, b in SAME]
    rows = []
    for t in THRESHOLDS:
        rows.append(
            {
                "threshold": t,
                "restatements_caught": sum(c >= t for c in same),
                "restatements_caught_with_guard": sum(
                    c >= t and g for c, g in zip(same, kept, strict=True)
                ),
                "different_folded": sum(c >= t for c in different),
                "different_folded_with_guard": sum(
                    c >= t and g for c, g in zip(different, guard, strict=True)
                ),
            }
        )
    out = {
        "embedder": embedder.id,
        "calibrated": embedder.near_duplicate,
        "restatements": len(SAME),
        "different": len(DIFFERENT),
        "lowest_restatement": round(min(same), 4),
        "highest_different": round(max(different), 4),
        "rows": rows,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"{embedder.id}: {len(SAME)} restatements (lowest cosine {min(same):.4f}), "
        f"{len(DIFFERENT)} different facts (highest {max(different):.4f}); "
        f"calibrated threshold {embedder.near_duplicate}"
    )
    print(f"{'threshold':>10} {'caught':>7} {'folded':>7}   guard on: {'caught':>7} {'folded':>7}")
    for row in rows:
        print(
            f"{row['threshold']:>10} {row['restatements_caught']:>4}/{len(SAME):<2} "
            f"{row['different_folded']:>4}/{len(DIFFERENT):<2}"
            f"{row['restatements_caught_with_guard']:>16}/{len(SAME):<2}"
            f"{row['different_folded_with_guard']:>5}/{len(DIFFERENT)}"
        )
    worst = sorted(zip(different, DIFFERENT, strict=True), reverse=True)[:3]
    print("closest different facts:", "; ".join(f"{c:.3f} {a!r} / {b!r}" for c, (a, b) in worst))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
