"""The LLM enrichers: atomic facts drawn from turns, and a situating line per turn.

Both run in the consolidator, never on a write, and only when an OpenAI-compatible endpoint is
configured (FACTGRAPH_LLM_BASE_URL) and the enricher is turned on. They read a turn with the
turns before it in its session (`WINDOW` turns), labelled T1..Tn so the model never sees or
invents fact ids.

- **Extraction** asks for atomic subject / predicate / object facts, each naming the turns it
  comes from. Each one is written through the ordinary conflict pipeline (`remember`: exact
  dedup, near duplicates, supersede) as a fact of source "consolidator", linked `DERIVED_FROM`
  its turns in the same transaction, and quarantined unless the turns' source is trusted.
- **Situating context**: one short sentence on who / what / when, added to the turn's index
  text only.

Anything unusable (a timeout, a 429 or 5xx after the client's retries, malformed JSON, a label
that names no turn of the window) raises `EnrichmentFailed`: the consolidator records it in the
audit trail and on the fact, and nothing of that answer is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graph.recall.llm import ChatClient, LLMError, _json_object

WINDOW = 2  # turns before the one being consolidated
MAX_FACTS = 10  # per turn: more is a model that lists everything
MAX_FIELD = 300
MAX_CONTEXT_CHARS = 300


class EnrichmentFailed(Exception):
    """The model gave no usable answer; the reason goes into the audit trail."""


@dataclass(frozen=True)
class Turn:
    id: str
    text: str
    turn: int | None


@dataclass(frozen=True)
class Extracted:
    text: str
    subject: str | None
    predicate: str | None
    object: str | None
    sources: tuple[str, ...]  # fact ids of the turns it was drawn from


def _listing(window: Sequence[Turn]) -> str:
    return "\n".join(f"T{i + 1}: {turn.text}" for i, turn in enumerate(window))


def _field(item: dict[str, Any], name: str) -> str | None:
    value = item.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise EnrichmentFailed(f"extraction: '{name}' is not a string")
    value = " ".join(value.split())[:MAX_FIELD]
    return value or None


class LLMEnrichers:
    def __init__(self, client: ChatClient) -> None:
        self.client = client

    def close(self) -> None:
        self.client.close()

    def extract(self, window: Sequence[Turn]) -> list[Extracted]:
        """Atomic facts stated in the last turn of the window (the others are its context)."""
        try:
            answer = self.client.complete(
                "You extract long-term memories from a conversation. From the LAST turn only "
                "(the earlier ones are context), list the atomic facts worth remembering about "
                'the people in it. Answer with a JSON object {"facts": [{"text": "one '
                'self-contained sentence", "subject": "...", "predicate": "snake_case", '
                '"object": "...", "sources": ["T3", ...]}]}, sources naming the turns the fact '
                'comes from; {"facts": []} when there is nothing to keep.',
                _listing(window),
                json_mode=True,
            )
            parsed = _json_object(answer)
        except LLMError as exc:
            raise EnrichmentFailed(f"extraction: {exc}") from None
        items = parsed.get("facts") if isinstance(parsed, dict) else None
        if not isinstance(items, list):
            raise EnrichmentFailed("extraction: no 'facts' list in the answer")
        labels = {f"T{i + 1}": turn.id for i, turn in enumerate(window)}
        out: list[Extracted] = []
        for item in items[:MAX_FACTS]:
            if not isinstance(item, dict):
                raise EnrichmentFailed("extraction: a fact is not an object")
            text = _field(item, "text")
            if text is None:
                raise EnrichmentFailed("extraction: a fact without text")
            sources = item.get("sources")
            if not isinstance(sources, list) or not sources:
                raise EnrichmentFailed("extraction: a fact without sources")
            unknown = [s for s in sources if not isinstance(s, str) or s not in labels]
            if unknown:
                raise EnrichmentFailed(
                    f"extraction: sources that name no turn of the window: {unknown[:5]!r}"
                )
            out.append(
                Extracted(
                    text=text,
                    subject=_field(item, "subject"),
                    predicate=_field(item, "predicate"),
                    object=_field(item, "object"),
                    sources=tuple(dict.fromkeys(labels[s] for s in sources)),
                )
            )
        return out

    def situate(self, window: Sequence[Turn]) -> str:
        """One sentence placing the last turn in its conversation (who, what about, when)."""
        try:
            answer = self.client.complete(
                "Write one short sentence that situates the LAST turn of this conversation "
                "for search: who speaks, to whom, about what. No commentary.",
                _listing(window),
            )
        except LLMError as exc:
            raise EnrichmentFailed(f"situating context: {exc}") from None
        context = " ".join(answer.replace("[", "(").replace("]", ")").split())
        if not context:
            raise EnrichmentFailed("situating context: an empty answer")
        return context[:MAX_CONTEXT_CHARS]
