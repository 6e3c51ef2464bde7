"""The policy of the write pipeline: which decision a new fact gets, and why.

These are pure functions over what the store found (the exact duplicate, near neighbours,
facts the new one may contradict), so the policy can be read and tested without Neo4j; the
order of operations and the transaction live in `graph.write.remembering`.

Stage order, as the caller sees it: validation, exact duplicate, near duplicate,
contradiction, quarantine, insert. One deliberate twist: input that will be quarantined skips
the near-duplicate and contradiction stages, because untrusted text must never reinforce,
merge into or retire a fact someone trusted. It is stored aside, and contradiction is checked
again when a reviewer validates it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from graph.config import PipelineSettings
from graph.reading.standing import revokes, topic_terms
from graph.write.entities import normalise
from graph.write.facts import DecisionKind, Fact, FactInput

# Phrases aimed at the agent reading its memory rather than describing the world. Kept short
# and explicit: a false positive costs a review, a false negative costs a hijacked agent.
_INJECTION = re.compile(
    r"""
    \b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all|your)\b
      [^.\n]{0,30}\b(instructions?|prompts?|rules|messages?|guidelines)\b
    | \b(you\s+are\s+now|from\s+now\s+on\s+you|act\s+as\s+(an?\s+)?(unfiltered|jailbroken|dan))\b
    | \bsystem\s*prompt\b
    | \b(reveal|print|leak|exfiltrate|send)\b[^.\n]{0,40}\b(api[\s_-]?keys?|passwords?|secrets?|
      credentials|system\s*prompt|tokens?)\b
    | <\s*/?\s*(system|assistant|instructions?)\s*>
    | \[\s*(system|inst)\s*\]
    | \bdo\s+not\s+tell\s+the\s+user\b
    | \bnew\s+instructions?\s*:
    """,
    re.IGNORECASE | re.VERBOSE,
)


def looks_like_injection(text: str) -> bool:
    """True when the text reads as instructions to the agent (prompt injection)."""
    folded = unicodedata.normalize("NFKC", text)
    return _INJECTION.search(folded) is not None


def predicate_key(predicate: str | None) -> str | None:
    """`Lives In`, `lives-in` and `lives_in` are the same predicate."""
    if predicate is None:
        return None
    key = re.sub(r"[^\w]+", "_", unicodedata.normalize("NFKC", predicate).casefold()).strip("_")
    return key or None


def object_key(value: str | None) -> str:
    return normalise(value) if value else ""


@dataclass(frozen=True)
class Neighbour:
    """A stored fact near the new one, with its true cosine similarity in [-1, 1]."""

    fact: Fact
    cosine: float


@dataclass(frozen=True)
class Verdict:
    """What the pipeline decided before writing: the kind, the fact acted on, and why."""

    kind: DecisionKind
    matched: Fact | None
    reason: str
    retire: tuple[Fact, ...] = ()
    successor: Fact | None = None


def quarantine_reason(fact: FactInput, settings: PipelineSettings) -> str | None:
    """Why this input must be held for review, or None when it may go live."""
    if not fact.trusted:
        return "the caller marked the input untrusted"
    if fact.source and fact.source.strip().casefold() in settings.untrusted_sources:
        return f"source {fact.source!r} is configured as untrusted"
    if looks_like_injection(fact.text):
        return "the text reads as instructions aimed at the agent (possible prompt injection)"
    return None


def is_single_valued(predicate: str | None, settings: PipelineSettings) -> bool:
    key = predicate_key(predicate)
    return key is not None and key in settings.single_valued


def decide(
    fact: FactInput,
    *,
    settings: PipelineSettings,
    near: Sequence[Neighbour],
    same_slot: Sequence[Fact],
    standing: Sequence[Neighbour] = (),
) -> Verdict:
    """Stages 3 to 6 for a fact that is not an exact duplicate of a live fact.

    `near` holds live neighbours by cosine (best first); `same_slot` the active facts with the
    same subject and predicate; `standing` the scope's active standing statements by cosine
    (best first), asked only for a text that revokes one (graph/reading/standing.py).
    """
    reason = quarantine_reason(fact, settings)
    if reason is not None:
        return Verdict(DecisionKind.QUARANTINE, None, reason)
    withdrawn = revoked(fact, standing)
    if withdrawn is not None:
        return Verdict(
            DecisionKind.SUPERSEDE,
            withdrawn,
            f"revokes the standing {withdrawn.standing or 'statement'} {withdrawn.text[:80]!r}",
            (withdrawn,),
        )
    new_object = object_key(fact.object)
    for old in same_slot:
        if fact.object and object_key(old.object) == new_object:
            return Verdict(
                _near_kind(settings),
                old,
                "same subject, predicate and object as an existing fact",
            )
    for neighbour in near:
        if neighbour.cosine >= settings.near_duplicate():
            if _contradicts(fact, neighbour.fact, settings) or not same_wording(
                fact.text, neighbour.fact.text
            ):
                continue
            return Verdict(
                _near_kind(settings),
                neighbour.fact,
                f"near duplicate (cosine {neighbour.cosine:.3f} >= "
                f"{settings.near_duplicate():.3f})",
            )
        break
    if fact.object and is_single_valued(fact.predicate, settings):
        others = [old for old in same_slot if object_key(old.object) != new_object]
        if fact.valid_from is not None:
            later = [old for old in others if old.valid_from > fact.valid_from]
            if later:
                # Learned late: the new fact was true before the active one, so it joins the
                # chain as its predecessor instead of retiring it.
                first = min(later, key=lambda old: old.valid_from)
                return Verdict(
                    DecisionKind.INSERT,
                    first,
                    f"older than the active {predicate_key(fact.predicate)} fact "
                    f"({first.object!r}); recorded as its predecessor",
                    successor=first,
                )
        retired = tuple(others)
        if retired:
            return Verdict(
                DecisionKind.SUPERSEDE,
                retired[0],
                f"{predicate_key(fact.predicate)} holds one value: "
                f"{retired[0].object!r} -> {fact.object!r}",
                retired,
            )
    return Verdict(DecisionKind.INSERT, None, "new fact")


def revoked(fact: FactInput, standing: Sequence[Neighbour]) -> Fact | None:
    """The standing statement a revocation withdraws: the closest one that shares a content
    word with it ("drop the type hints" / "always include type hints"); None when the text
    revokes nothing or no statement shares its words. Closeness alone is not enough:
    e5-small-v2 put "forget what I said about emojis" above cosine 0.85 to "I prefer PostgreSQL"."""
    if not standing or not revokes(fact.text, fact.subject):
        return None
    words = topic_terms(fact.text)
    for neighbour in standing:
        if words & topic_terms(neighbour.fact.text):
            return neighbour.fact
    return None


def _near_kind(settings: PipelineSettings) -> DecisionKind:
    return DecisionKind.MERGE if settings.near_duplicate_action == "merge" else DecisionKind.DEDUP


_NUMBER_WORDS = {
    word: str(i)
    for i, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


def _numbers(words: set[str]) -> set[str]:
    """The numbers a text states, digits or spelled out to twelve ("four" and "4" are one)."""
    return {_NUMBER_WORDS.get(w, w) for w in words if w.isdigit() or w in _NUMBER_WORDS}


def same_wording(text: str, other: str) -> bool:
    """Whether two texts close in vector space may be one fact said twice.

    Vectors agree for two reasons this rules out. The index text starts with "[about X;
    session S; on DATE]", which pulls short, unrelated turns of one conversation close
    together: a near duplicate must share most of its words. And a model may put "item 3" and
    "item 4" closer than a restatement (e5-small-v2 does, bench/near_duplicates.py): a near
    duplicate states the same numbers.
    """
    mine, theirs = _words(text), _words(other)
    if not mine or not theirs or _numbers(mine) != _numbers(theirs):
        return False
    return len(mine & theirs) / len(mine | theirs) >= 0.5


def _contradicts(fact: FactInput, old: Fact, settings: PipelineSettings) -> bool:
    """Near-identical wording with a different value ("lives in Paris" / "in Rome") is news."""
    return (
        is_single_valued(fact.predicate, settings)
        and predicate_key(old.predicate) == predicate_key(fact.predicate)
        and bool(fact.object)
        and object_key(old.object) != object_key(fact.object)
    )
