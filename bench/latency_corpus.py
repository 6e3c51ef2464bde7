"""The synthetic memory of bench/latency.py: facts, sessions, supersede chains and queries.

Everything is drawn from one `random.Random(seed)`, so the same seed gives the same facts, ids
and queries. Facts are built from a pool of distinct "core" sentences (a person, a relation, an
object), each embedded once by the real model; a fact's text is its core sentence plus one of
many detail clauses, so texts are distinct (exact dedup keeps them all) while facts sharing a
core share its vector. Embedding 100,000 distinct texts would take minutes on two cores and the
index work, not the meaning of each vector, is what latency depends on; the pool keeps the
vector neighbourhoods real (queries are embedded by the same model and land near the facts
that talk about the same people and things).
"""

from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graph.platform.embedding import Embedder

FIRST = [
    "Ana",
    "Bo",
    "Cy",
    "Di",
    "Ed",
    "Flo",
    "Gus",
    "Hal",
    "Ines",
    "Jon",
    "Kai",
    "Lena",
    "Milo",
    "Nora",
    "Omar",
    "Pia",
    "Quinn",
    "Rosa",
    "Sven",
    "Tara",
]
LAST = [
    "Berg",
    "Lind",
    "Moss",
    "Reyes",
    "Sato",
    "Voss",
    "Wolfe",
    "Yoon",
    "Okafor",
    "Novak",
    "Haddad",
    "Costa",
]
PEOPLE = [f"{f} {last}" for f in FIRST for last in LAST]  # 240 people
CITIES = [
    "Lisbon",
    "Berlin",
    "Oslo",
    "Kyoto",
    "Lagos",
    "Lima",
    "Austin",
    "Dublin",
    "Porto",
    "Seoul",
    "Nairobi",
    "Quito",
    "Tallinn",
    "Hanoi",
    "Krakow",
    "Bergen",
    "Malmo",
    "Ghent",
    "Leeds",
    "Turin",
    "Bilbao",
    "Split",
    "Cork",
    "Graz",
    "Lyon",
    "Basel",
    "Utrecht",
    "Aarhus",
]
ORGS = [
    "Acme Corp",
    "Northwind",
    "Globex",
    "Initech",
    "Umbrella Labs",
    "Stark Freight",
    "Wayne Foods",
    "Hooli",
    "Vandelay Imports",
    "Soylent Co",
    "Tyrell Systems",
    "Cyberdyne",
    "Wonka Sweets",
    "Gringotts Bank",
    "Oscorp",
    "Pied Piper",
    "Aperture Science",
    "Monarch Solutions",
    "Blue Sun",
    "Massive Dynamic",
]
ROLES = [
    "data engineer",
    "product manager",
    "nurse",
    "teacher",
    "accountant",
    "chef",
    "architect",
    "pilot",
    "designer",
    "lawyer",
    "pharmacist",
    "mechanic",
    "editor",
    "researcher",
    "sales lead",
]
FOODS = [
    "sourdough bread",
    "oat milk lattes",
    "spicy ramen",
    "dark chocolate",
    "green curry",
    "fresh figs",
    "goat cheese",
    "sushi",
    "mushroom risotto",
    "lemon tart",
    "black coffee",
    "mint tea",
    "falafel",
    "pistachio ice cream",
    "smoked salmon",
    "kimchi",
    "roasted almonds",
    "blueberry pancakes",
]
HOBBIES = [
    "rock climbing",
    "sailing",
    "playing chess",
    "knitting scarves",
    "birdwatching",
    "restoring old bikes",
    "baking bread",
    "running half marathons",
    "painting watercolours",
    "playing the cello",
    "growing tomatoes",
    "writing poetry",
    "building model trains",
    "salsa dancing",
    "fly fishing",
]
PROJECTS = [
    "the billing migration",
    "the Q3 report",
    "the mobile app redesign",
    "the data warehouse",
    "the onboarding flow",
    "the search rewrite",
    "the pricing page",
    "the security audit",
    "the hiring plan",
    "the warehouse robots",
    "the partner API",
    "the annual budget",
]
PETS = ["dog", "cat", "parrot", "rabbit", "tortoise", "hamster"]
PET_NAMES = [
    "Biscuit",
    "Pepper",
    "Luna",
    "Mochi",
    "Ziggy",
    "Olive",
    "Rex",
    "Nacho",
    "Juniper",
    "Pickles",
]
ALLERGENS = [
    "peanuts",
    "shellfish",
    "penicillin",
    "pollen",
    "cats",
    "gluten",
    "lactose",
    "bee stings",
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
DETAILS = (
    "as mentioned during the weekly call",
    "according to a message from last week",
    "which came up over lunch",
    "as noted in the shared calendar",
    "said while planning the next sprint",
    "mentioned in passing at the offsite",
    "from the voice memo on Friday",
    "as confirmed by email",
    "according to the family group chat",
    "noted after the doctor's appointment",
    "as written in the travel notes",
    "mentioned while talking about the weekend",
    "from the quarterly review notes",
    "as their partner pointed out",
    "said during the morning stand-up",
    "as recorded in the support ticket",
    "according to the onboarding form",
    "noted in the journal entry",
    "mentioned on the train home",
    "as discussed at the dinner party",
    "per the updated profile",
    "from the chat about holidays",
    "said at the school pickup",
    "as mentioned in the retro",
    "according to the handwritten note",
    "noted during the budget meeting",
    "from the conversation about moving",
    "as stated in the reference letter",
    "mentioned while fixing the printer",
    "said during the video call with the team",
    "according to the latest newsletter",
    "noted while packing for the trip",
    "as mentioned at the book club",
    "from the comments on the design doc",
    "said after the gym session",
    "according to the neighbour",
    "noted when booking the flights",
    "as mentioned in the birthday card",
    "from the standup recording",
    "as the assistant summarised it",
)
TAGS_OF = {
    "lives_in": ("home",),
    "works_at": ("work", "career"),
    "likes": ("food",),
    "hobby": ("hobby",),
    "works_on": ("work", "project"),
    "has_pet": ("family", "pet"),
    "plans_trip": ("travel",),
    "allergic_to": ("health",),
    "met": ("work", "meeting"),
}
CHAINED = ("lives_in", "works_at")  # single-valued: a new value supersedes the old one
RARE_TAG = "urgent"  # on about 0.5% of the facts: the selective filter of the bench
RARE_RATE = 0.005
T0 = datetime(2024, 1, 1, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Core:
    """One embedded sentence: who, what relation, what object, and its tags."""

    text: str
    subject: str
    predicate: str
    object: str
    tags: tuple[str, ...]


def _core(rng: random.Random) -> Core:
    p = rng.choice(PEOPLE)
    kind = rng.choice(list(TAGS_OF))
    q = rng.choice([x for x in PEOPLE if x != p][:60])
    if kind == "lives_in":
        o = rng.choice(CITIES)
        text = rng.choice([f"{p} lives in {o}", f"{p} moved to {o}", f"{p}'s home is now in {o}"])
    elif kind == "works_at":
        o = rng.choice(ORGS)
        text = f"{p} works at {o} as a {rng.choice(ROLES)}"
    elif kind == "likes":
        o = rng.choice(FOODS)
        text = rng.choice([f"{p} loves {o}", f"{p} always orders {o}", f"{p} can't stand {o}"])
    elif kind == "hobby":
        o = rng.choice(HOBBIES)
        text = f"{p} spends weekends {o}"
    elif kind == "works_on":
        o = rng.choice(PROJECTS)
        text = f"{p} is working on {o} with {q}"
    elif kind == "has_pet":
        o = rng.choice(PET_NAMES)
        text = f"{p} has a {rng.choice(PETS)} called {o}"
    elif kind == "plans_trip":
        o = rng.choice(CITIES)
        text = f"{p} is planning a trip to {o} in {rng.choice(MONTHS)}"
    elif kind == "allergic_to":
        o = rng.choice(ALLERGENS)
        text = f"{p} is allergic to {o}"
    else:
        o = q
        text = f"{p} met {q} in {rng.choice(CITIES)} to discuss {rng.choice(PROJECTS)}"
    return Core(text, p, kind, o, TAGS_OF[kind])


def core_pool(seed: int, size: int) -> list[Core]:
    rng = random.Random(f"pool-{seed}")
    seen: dict[str, Core] = {}
    while len(seen) < size:
        core = _core(rng)
        seen.setdefault(core.text, core)
    return list(seen.values())


def pool_vectors(embedder: Embedder, pool: list[Core], cache_dir: Path) -> np.ndarray:
    """The pool's vectors by the real model, cached on disk by content (model + texts)."""
    digest = hashlib.sha256(
        "\n".join([embedder.id, *(c.text for c in pool)]).encode("utf-8")
    ).hexdigest()[:16]
    path = cache_dir / f"latency-pool-{digest}.npy"
    if path.exists():
        return np.asarray(np.load(path), dtype=np.float32)
    vectors = np.asarray(embedder.embed([c.text for c in pool], batch_size=128), dtype=np.float32)
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def fact_id(seed: int, facts: int, index: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"factgraph-bench-latency/{seed}/{facts}/{index}"))


def fact_rows(
    seed: int, facts: int, pool: list[Core], vectors: np.ndarray
) -> Iterator[dict[str, Any]]:
    """Import rows (JSON-ready dicts) in time order: sessions of turns, chains of versions.

    About 8% of the facts belong to supersede chains (2-4 versions of where someone lives or
    works); every version but the last is `superseded`, closed at its successor's valid_from.
    """
    rng = random.Random(f"facts-{seed}")
    by_predicate: dict[str, list[int]] = {}
    for i, core in enumerate(pool):
        by_predicate.setdefault(core.predicate, []).append(i)
    combos = rng.sample(range(len(pool) * len(DETAILS)), facts)
    # Choose chain positions first: (first index, length); members are consecutive in time.
    step = timedelta(minutes=max(1, (2 * 365 * 24 * 60) // max(facts, 1)))
    index = 0
    session = 0
    while index < facts:
        length = min(rng.randint(5, 40), facts - index)
        session += 1
        session_id = f"s{seed}-{session:06d}"
        turn = 0
        pending_chain: list[int] = []
        while turn < length:
            at = T0 + step * index
            chain = rng.random() < 0.03 and length - turn >= 2 and not pending_chain
            span = min(rng.randint(2, 4), length - turn) if chain else 1
            if span > 1:
                predicate = rng.choice(CHAINED)
                subject = pool[rng.choice(by_predicate[predicate])].subject
                members = [i for i in by_predicate[predicate] if pool[i].subject == subject]
                picks = [rng.choice(members) for _ in range(span)]
                previous: str | None = None
                for n, core_index in enumerate(picks):
                    yield _row(
                        seed,
                        facts,
                        index,
                        pool,
                        vectors,
                        core_index,
                        combos[index],
                        rng,
                        session_id=session_id,
                        turn=turn,
                        at=at + step * n / span,
                        status="active" if n == span - 1 else "superseded",
                        valid_to=None if n == span - 1 else at + step * (n + 1) / span,
                        supersedes=previous,
                    )
                    previous = fact_id(seed, facts, index)
                    index += 1
                    turn += 1
            else:
                core_index = combos[index] // len(DETAILS)
                yield _row(
                    seed,
                    facts,
                    index,
                    pool,
                    vectors,
                    core_index,
                    combos[index],
                    rng,
                    session_id=session_id,
                    turn=turn,
                    at=at,
                    status="active",
                    valid_to=None,
                    supersedes=None,
                )
                index += 1
                turn += 1


def _row(
    seed: int,
    facts: int,
    index: int,
    pool: list[Core],
    vectors: np.ndarray,
    core_index: int,
    combo: int,
    rng: random.Random,
    *,
    session_id: str,
    turn: int,
    at: datetime,
    status: str,
    valid_to: datetime | None,
    supersedes: str | None,
) -> dict[str, Any]:
    core = pool[core_index]
    detail = DETAILS[combo % len(DETAILS)]
    tags = list(core.tags)
    if rng.random() < RARE_RATE:
        tags.append(RARE_TAG)
    row: dict[str, Any] = {
        "id": fact_id(seed, facts, index),
        # The index keeps texts distinct (exact dedup would merge repeats of a core sentence).
        "text": f"{core.text}, {detail} (note {index}).",
        "subject": core.subject,
        "predicate": core.predicate,
        "object": core.object,
        "tags": tags,
        "importance": rng.randint(1, 10),
        "session_id": session_id,
        "turn": turn,
        "valid_from": at.isoformat(),
        "embedding": [round(float(x), 6) for x in vectors[core_index]],
    }
    if status != "active":
        row["status"] = status
    if valid_to is not None:
        row["valid_to"] = valid_to.isoformat()
    if supersedes is not None:
        row["supersedes"] = [{"id": supersedes, "reason": "moved on", "at": at.isoformat()}]
    return row


QUESTION_TEMPLATES = (
    "where does {p} live now",
    "what does {p} like to eat",
    "which company does {p} work for",
    "what is {p} working on",
    "does {p} have any allergies",
    "what pet does {p} have",
    "when is {p} travelling to {c}",
    "who did {p} meet about {j}",
    "what does {p} do on weekends",
    "who is working on {j}",
    "is anyone allergic to {a}",
    "who lives in {c}",
    "who loves {f}",
    "{p} trip to {c}",
    "{p} and {q} discussing {j}",
    "{p} {f}",
    "who enjoys {h}",
    "what role does {p} have at {o}",
)


class Queries:
    """Distinct natural questions, so no measured search hits the query-embedding cache."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(f"queries-{seed}")
        self._seen: set[str] = set()

    def next(self) -> str:
        r = self._rng
        while True:
            text = r.choice(QUESTION_TEMPLATES).format(
                p=r.choice(PEOPLE),
                q=r.choice(PEOPLE),
                c=r.choice(CITIES),
                j=r.choice(PROJECTS),
                a=r.choice(ALLERGENS),
                f=r.choice(FOODS),
                h=r.choice(HOBBIES),
                o=r.choice(ORGS),
            )
            if text not in self._seen:
                self._seen.add(text)
                return text

    def take(self, count: int) -> list[str]:
        return [self.next() for _ in range(count)]


LEXICAL_NEEDLES = ("ana berg", "lisbon", "sourdough", "tyrell", "cello", "note 4242", "zzqx")
