"""The OpenAI Agents SDK on factgraph: `FactgraphSession` and `factgraph_tools`.

`FactgraphSession` is the SDK's `Session` (get_items, add_items, pop_item, clear_session): an
agent's conversation history kept in factgraph per session id, so it survives restarts of the
agent and is searchable. An item is a fact of the client's scope:

- session id -> the fact's `session_id`, and its partition (`openai-agents:<session id>`), so
  a session is read by factgraph's timeline (an index seek) and searched apart from the others;
- position -> the fact's `turn`, and its valid time: the items of a session get strictly
  increasing valid times, which the timeline orders by, so "the latest N items" is one page read
  newest first;
- item -> kept whole, as JSON, in the fact's metadata (`metadata.openai_agents.item`), or in its
  text when larger than factgraph's metadata bound (16 KB); the text is what a person reads
  ("user: What city is the Golden Gate Bridge in?"), which factgraph indexes for full-text and
  vector search, and ends with a short digest because factgraph keeps one live fact per
  identical text in a scope and a user may say "yes" twice.

`pop_item` and `clear_session` forget facts: they leave the history and every search and stay
in factgraph's audit trail. `factgraph_tools` gives an agent `remember` and `search` as
function tools over the same client, for what it should keep beyond one conversation.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from agents import (
    RunContextWrapper,
    Tool,
    TResponseInputItem,
    default_tool_error_function,
    function_tool,
)
from agents.memory import SessionSettings, coerce_session_settings, resolve_session_limit

from factgraph_client.client import AsyncClient
from factgraph_client.errors import FactgraphError, ValidationError
from factgraph_client.types import FACT_FIELDS, Fact, MemoryInput

__all__ = ["FactgraphSession", "factgraph_tools"]

META = "openai_agents"
SOURCE = "openai-agents"
PAGE = 100  # the timeline's largest page
BATCH = 500  # items per rememberMany (the service's bound is FACTGRAPH_BATCH_MAX, 1000)
FORGET_BATCH = 100  # forgets per request in clear_session
# An item's JSON goes in the metadata up to this size, in the text beyond (the service refuses
# metadata over 16,000 bytes; the rest is the envelope around the item).
METADATA_ITEM_BYTES = 15_000
STEP = timedelta(microseconds=1)
RACE_RETRIES = 3

_REMEMBER_MANY = (
    "mutation($s: String!, $f: [FactInput!]!) "
    "{ rememberMany(scope: $s, facts: $f, pipeline: false) { kind fact { id } } }"
)
_SEARCH = (
    "query($s: String!, $q: String!, $o: SearchOptionsInput) "
    "{ search(scope: $s, query: $q, options: $o) "
    f"{{ hits {{ score fact {{ {FACT_FIELDS} }} }} }} }}"
)


class FactgraphSession:
    """An OpenAI Agents SDK session kept in factgraph, in the client's scope.

    `session_id` names the conversation; two sessions with the same id and scope share it,
    across processes and restarts. `session_settings` (or a dict of its fields) sets the
    default `limit` of `get_items`, as for the SDK's own sessions.
    """

    def __init__(
        self,
        session_id: str,
        client: AsyncClient,
        *,
        session_settings: SessionSettings | Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise ValueError("session_id must be a non-empty string")
        self.session_id = session_id
        self.client = client
        self.partition = f"openai-agents:{session_id}"
        self.session_settings: SessionSettings | None = (
            coerce_session_settings(dict(session_settings))
            if isinstance(session_settings, Mapping)
            else session_settings or SessionSettings()
        )
        self._owned = False
        self._lock = asyncio.Lock()  # one writer of this session per process at a time

    @classmethod
    def connect(
        cls,
        session_id: str,
        base_url: str = "http://127.0.0.1:8000",
        *,
        scope: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        session_settings: SessionSettings | Mapping[str, Any] | None = None,
    ) -> FactgraphSession:
        """A session over a client of its own, closed by `close()`."""
        session = cls(
            session_id,
            AsyncClient(base_url, scope=scope, api_key=api_key, timeout=timeout),
            session_settings=session_settings,
        )
        session._owned = True
        return session

    async def close(self) -> None:
        """Closes the client if this session made it (`connect`); a client passed in stays open."""
        if self._owned:
            await self.client.aclose()

    # -- the Session protocol ----------------------------------------------------------------
    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The session's items, oldest first; with `limit`, the latest `limit` of them."""
        wanted = resolve_session_limit(limit, self.session_settings)
        if wanted is not None and wanted <= 0:
            return []
        facts = await self._newest(wanted)
        return [item_of(fact) for fact in reversed(facts)]

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        """Appends the items, in order, after the session's latest one."""
        if not items:
            return
        async with self._lock:
            newest = await self._newest(1)
            last = newest[0] if newest else None
            turn = (last.turn if last is not None and last.turn is not None else -1) + 1
            start = datetime.now(UTC)
            if last is not None and last.valid_from is not None and last.valid_from >= start:
                start = last.valid_from + STEP  # a clock behind the last writer's
            facts = [
                self._input(item, turn + i, start + i * STEP).to_graphql()
                for i, item in enumerate(items)
            ]
            for first in range(0, len(facts), BATCH):
                await self.client.graphql(
                    _REMEMBER_MANY, {"s": self.client.scope, "f": facts[first : first + BATCH]}
                )

    async def pop_item(self) -> TResponseInputItem | None:
        """Removes the latest item and returns it (None when the session is empty)."""
        async with self._lock:
            for attempt in range(RACE_RETRIES + 1):
                newest = await self._newest(1)
                if not newest:
                    return None
                try:
                    await self.client.forget(newest[0].id, reason="popped from the session")
                except FactgraphError as exc:  # another process popped it first: read again
                    if exc.code not in ("NOT_FOUND", "CONFLICT") or attempt == RACE_RETRIES:
                        raise
                    continue
                return item_of(newest[0])
        return None

    async def clear_session(self) -> None:
        """Forgets every item of the session."""
        async with self._lock:
            ids = [fact.id for fact in await self._newest(None)]
            for first in range(0, len(ids), FORGET_BATCH):
                await self._forget_many(ids[first : first + FORGET_BATCH])

    # -- beyond the protocol -----------------------------------------------------------------
    async def search(
        self, query: str, *, top_k: int = 10
    ) -> list[tuple[TResponseInputItem, float]]:
        """The session's items that best answer `query` (factgraph's hybrid search), best
        first, with their scores: what was said about something, however long ago."""
        options = {
            "topK": top_k,
            "partitions": [self.partition],
            "relatedLimit": 0,
            "standingLimit": 0,
        }
        data = await self.client.graphql(
            _SEARCH, {"s": self.client.scope, "q": query, "o": options}
        )
        hits = [(Fact.from_graphql(h["fact"]), float(h["score"])) for h in data["search"]["hits"]]
        return [(item_of(fact), score) for fact, score in hits if META in fact.metadata]

    # -- parts -------------------------------------------------------------------------------
    async def _newest(self, limit: int | None) -> list[Fact]:
        """The session's live facts, newest first (all of them when `limit` is None)."""
        facts: list[Fact] = []
        after: str | None = None
        while limit is None or len(facts) < limit:
            first = PAGE if limit is None else min(PAGE, limit - len(facts))
            page = await self.client.timeline(
                first=first, after=after, partition=self.partition, session_id=self.session_id
            )
            facts += [fact for fact in page.items if META in fact.metadata]
            if page.next_cursor is None:
                break
            after = page.next_cursor
        return facts

    async def _forget_many(self, ids: Sequence[str]) -> None:
        """Forgets facts in one request (one aliased mutation each); one already gone is fine."""
        if not ids:
            return
        params = ", ".join(f"$i{n}: ID!" for n in range(len(ids)))
        fields = " ".join(
            f'f{n}: forget(scope: $s, id: $i{n}, reason: "session cleared") {{ id }}'
            for n in range(len(ids))
        )
        variables: dict[str, Any] = {"s": self.client.scope}
        variables.update({f"i{n}": fact_id for n, fact_id in enumerate(ids)})
        try:
            await self.client.graphql(f"mutation($s: String!, {params}) {{ {fields} }}", variables)
        except FactgraphError as exc:
            if exc.code not in ("NOT_FOUND", "CONFLICT"):
                raise
            for fact_id in ids:  # someone else forgot one of them: the rest one by one
                try:
                    await self.client.forget(fact_id, reason="session cleared")
                except FactgraphError as one:
                    if one.code not in ("NOT_FOUND", "CONFLICT"):
                        raise

    def _input(self, item: TResponseInputItem, turn: int, valid_from: datetime) -> MemoryInput:
        encoded = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        readable = text_of(item)
        digest = hashlib.sha256(f"{self.session_id}\x00{turn}".encode()).hexdigest()[:12]
        small = len(encoded.encode()) <= METADATA_ITEM_BYTES
        meta: dict[str, Any] = {"item": encoded} if small else {"item_in_text": True}
        return MemoryInput(
            content=f"{readable}\n[{digest}]" if small else encoded,
            subject=_role_of(item),
            partition=self.partition,
            session_id=self.session_id,
            turn=turn,
            valid_from=valid_from,
            metadata={META: meta},
            tags=[SOURCE],
            source=SOURCE,
        )


def item_of(fact: Fact) -> TResponseInputItem:
    """The SDK item a session fact holds."""
    meta = fact.metadata.get(META)
    encoded = meta.get("item") if isinstance(meta, dict) else None
    return cast(TResponseInputItem, json.loads(encoded if isinstance(encoded, str) else fact.text))


def _role_of(item: Mapping[str, Any]) -> str:
    role = item.get("role")
    if isinstance(role, str) and role:
        return role
    kind = item.get("type")
    return kind if isinstance(kind, str) and kind else "item"


def text_of(item: Mapping[str, Any]) -> str:
    """What a person reads of an item: "user: ...", "function_call lookup({...})"."""
    kind = item.get("type")
    if kind == "function_call":
        return f"function_call {item.get('name')}({item.get('arguments') or ''})"
    if isinstance(kind, str) and kind.endswith("_output") and "output" in item:
        output = item.get("output")
        return f"{kind}: {output if isinstance(output, str) else json.dumps(output)}"
    content = item.get("content")
    if isinstance(content, str):
        return f"{_role_of(item)}: {content}"
    if isinstance(content, list):
        parts = [_part_text(part) for part in content if isinstance(part, Mapping)]
        return f"{_role_of(item)}: " + " ".join(p for p in parts if p)
    return json.dumps(item, ensure_ascii=False)[:2_000]


def _part_text(part: Mapping[str, Any]) -> str:
    for name in ("text", "refusal", "transcript"):
        value = part.get(name)
        if isinstance(value, str):
            return value
    kind = part.get("type")
    return f"[{kind}]" if isinstance(kind, str) else ""


def _tool_error(context: RunContextWrapper[Any], error: Exception) -> str:
    """What the model reads when a tool failed: what to fix for bad input, little else."""
    cause = error.__cause__ if not isinstance(error, FactgraphError) else error
    if isinstance(cause, ValidationError):
        return json.dumps({"error": cause.code, "field": cause.field, "message": cause.message})
    return default_tool_error_function(context, error)


def factgraph_tools(
    client: AsyncClient,
    *,
    partition: str | None = None,
    top_k: int = 5,
) -> list[Tool]:
    """`remember` and `search` as function tools of the OpenAI Agents SDK, in the client's
    scope (and `partition`, when given: the tools then write and read only there).

    A tool's failure comes back to the model as the tool's result (the SDK's way): for bad input
    the service's message naming the field, so the agent can correct its call; for anything
    else the SDK's generic message, which exposes nothing.
    """

    @function_tool(name_override="remember", failure_error_function=_tool_error)
    async def remember(content: str, subject: str | None = None) -> str:
        """Remember one fact for later conversations (factgraph long-term memory).

        Args:
            content: The fact, as one self-contained sentence ("Ana lives in Lisbon").
            subject: Who or what the fact is about ("Ana"), when there is one.
        """
        decision = await client.remember(
            content, subject=subject, partition=partition, source=SOURCE
        )
        return json.dumps(
            {"decision": decision.kind, "id": decision.fact.id, "text": decision.fact.text}
        )

    @function_tool(name_override="search", failure_error_function=_tool_error)
    async def search(query: str) -> str:
        """Search long-term memory for facts that answer a question.

        Args:
            query: The question or topic, in plain words ("where does Ana live?").
        """
        result = await client.search(
            query, top_k=top_k, partitions=[partition] if partition else None
        )
        return json.dumps(
            {
                "memories": [
                    {"id": hit.fact.id, "text": hit.fact.text, "score": round(hit.score, 4)}
                    for hit in result.hits
                ],
                "standing": [s.fact.text for s in result.standing],
            },
            ensure_ascii=False,
        )

    return [remember, search]
