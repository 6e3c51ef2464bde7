"""Google ADK's memory on factgraph: `FactgraphMemoryService`, a `BaseMemoryService`.

ADK keeps a conversation in a session service and hands finished sessions to a memory service,
which later answers `search_memory` (the `load_memory` and `preload_memory` tools call it). Here
every event with text becomes a fact of the client's scope:

- the event's author ("user", or the agent's name) -> the fact's subject;
- its text -> the fact's text, through factgraph's write pipeline (a user who moved from Paris
  to Berlin leaves Berlin live and Paris in the history; an identical text is kept once);
- (app name, user id) -> the fact's partition, `["adk","<app>","<user>"]`, which every search
  is confined to, so one user never reads another's memory;
- session id, position and time -> the fact's session id, turn and valid time (the turn window
  of factgraph's search then brings the neighbouring turns along);
- event id, author and timestamp -> `metadata.adk`, so adding a session again writes only the
  events not yet written, and `search_memory` answers with ADK's `MemoryEntry` (id, content,
  author, timestamp) as ADK's own services do.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from factgraph_client.client import AsyncClient
from factgraph_client.errors import FactgraphError
from factgraph_client.types import Fact, MemoryInput

if TYPE_CHECKING:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session

__all__ = ["FactgraphMemoryService"]

META = "adk"
SOURCE = "adk"
PAGE = 100  # the timeline's largest page
BATCH = 500  # facts per remember_many (the service's bound is FACTGRAPH_BATCH_MAX, 1000)


def partition_of(app_name: str, user_id: str) -> str:
    """One user's memory of one app: a JSON array, so no name can pose as another's."""
    return json.dumps(["adk", app_name, user_id], ensure_ascii=False, separators=(",", ":"))


class FactgraphMemoryService(BaseMemoryService):
    """ADK's memory service over factgraph, in the client's scope.

    `top_k` bounds what `search_memory` returns (ADK's in-memory service returns at most 10);
    `min_score` leaves out hits whose relevance (0..1) is below it.
    """

    def __init__(self, client: AsyncClient, *, top_k: int = 10, min_score: float = 0.0) -> None:
        self.client = client
        self.top_k = top_k
        self.min_score = min_score

    async def add_session_to_memory(self, session: Session) -> None:
        """Writes the session's events that are not in memory yet (a session may come back
        several times as it grows)."""
        await self._add(session.app_name, session.user_id, session.id, session.events)

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Writes these events (a delta, e.g. the latest turn) of the session, once each."""
        await self._add(app_name, user_id, session_id, events)

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Writes explicit memories: each entry's text, its author as the subject."""
        items = []
        for entry in memories:
            text = _text_of(entry.content)
            if text:
                items.append(
                    MemoryInput(
                        content=text,
                        subject=entry.author,
                        partition=partition_of(app_name, user_id),
                        metadata={META: {"author": entry.author, "timestamp": entry.timestamp}},
                        tags=[SOURCE],
                        source=SOURCE,
                    )
                )
        for first in range(0, len(items), BATCH):
            await self.client.remember_many(items[first : first + BATCH])

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """The user's memories that best answer `query` (factgraph's hybrid search), best
        first, as ADK's `MemoryEntry`s; `custom_metadata` carries the score and session."""
        result = await self.client.search(
            query,
            top_k=self.top_k,
            partitions=[partition_of(app_name, user_id)],
            min_score=self.min_score,
        )
        return SearchMemoryResponse(
            memories=[_entry_of(hit.fact, hit.score) for hit in result.hits]
        )

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forgets the memory `search_memory` returned with this id (it stays in factgraph's
        audit trail). Unlike ADK's in-memory service, adding its session again writes the event
        again: factgraph reads back the live facts of a session, not the forgotten ones."""
        if not memory_id:
            return
        fact = await self.client.get(memory_id)
        if fact is None or fact.partition != partition_of(app_name, user_id):
            return  # not this user's: as ADK's in-memory service, nothing to delete
        try:
            await self.client.forget(memory_id, reason="deleted through the ADK memory service")
        except FactgraphError as exc:
            if exc.code not in ("NOT_FOUND", "CONFLICT"):
                raise

    # -- parts -------------------------------------------------------------------------------
    async def _add(
        self, app_name: str, user_id: str, session_id: str | None, events: Sequence[Event]
    ) -> None:
        partition = partition_of(app_name, user_id)
        known = await self._known_events(partition, session_id)
        items = []
        for turn, event in enumerate(events):
            text = _text_of(event.content)
            if not text or not event.id or event.id in known:
                continue
            known.add(event.id)
            when = datetime.fromtimestamp(event.timestamp, UTC)
            items.append(
                MemoryInput(
                    content=text,
                    subject=event.author,
                    partition=partition,
                    session_id=session_id,
                    turn=turn if session_id else None,
                    valid_from=when,
                    metadata={
                        META: {
                            "event_id": event.id,
                            "author": event.author,
                            "invocation_id": event.invocation_id,
                            "timestamp": when.isoformat(),
                        }
                    },
                    tags=[SOURCE],
                    source=SOURCE,
                )
            )
        for first in range(0, len(items), BATCH):
            await self.client.remember_many(items[first : first + BATCH])

    async def _known_events(self, partition: str, session_id: str | None) -> set[str]:
        """The ids of the session's events already written (live, or forgotten on purpose)."""
        if session_id is None:
            return set()
        known: set[str] = set()
        after: str | None = None
        while True:
            page = await self.client.timeline(
                first=PAGE, after=after, partition=partition, session_id=session_id
            )
            for fact in page.items:
                event_id = _meta(fact).get("event_id")
                if isinstance(event_id, str):
                    known.add(event_id)
            if page.next_cursor is None:
                return known
            after = page.next_cursor


def _meta(fact: Fact) -> dict[str, Any]:
    meta = fact.metadata.get(META)
    return meta if isinstance(meta, dict) else {}


def _text_of(content: types.Content | None) -> str:
    """The visible text of an event (thoughts, calls and files left out)."""
    if content is None or not content.parts:
        return ""
    texts = [part.text for part in content.parts if part.text and not part.thought]
    return " ".join(texts).strip()


def _entry_of(fact: Fact, score: float) -> MemoryEntry:
    meta = _meta(fact)
    author = meta.get("author") if isinstance(meta.get("author"), str) else fact.subject
    timestamp = meta.get("timestamp")
    if not isinstance(timestamp, str):
        when = fact.valid_from or fact.created_at
        timestamp = when.isoformat() if when else None
    return MemoryEntry(
        id=fact.id,
        content=types.Content(
            role="user" if author == "user" else "model", parts=[types.Part(text=fact.text)]
        ),
        author=author,
        timestamp=timestamp,
        custom_metadata={"score": score, "source": "factgraph"},
    )
