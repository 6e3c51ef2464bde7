"""`Client` and `AsyncClient`: the factgraph service over HTTP, with typed results.

Both send the same `Call`s (factgraph_client._ops); they differ only in blocking or awaiting.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, TypeVar

import httpx

from factgraph_client import _ops
from factgraph_client._core import Call, Session
from factgraph_client.types import (
    Decision,
    Fact,
    FactPage,
    MemoryInput,
    SearchResult,
    Standing,
)

T = TypeVar("T")


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context for every client this process makes: httpx would build one
    per client, loading the CA bundle each time (tens of milliseconds per client)."""
    return httpx.create_ssl_context()


class Client:
    """A blocking client of one scope.

    `base_url` is the service (e.g. http://127.0.0.1:8000); `api_key` is sent as a Bearer
    token; `scope` is sent with every call (X-Scope for REST, the argument for GraphQL). A 503
    is sent again after its Retry-After (capped at `max_retry_wait` seconds), at most `retries`
    times. Pass `http` to reuse your own httpx.Client (its base_url is then yours to set).
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        scope: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        max_retry_wait: float = 30.0,
        http: httpx.Client | None = None,
    ) -> None:
        self.session = Session(
            scope=scope, api_key=api_key, retries=retries, max_retry_wait=max_retry_wait
        )
        self._owned = http is None
        self.http = (
            http
            if http is not None
            else httpx.Client(base_url=base_url, timeout=timeout, verify=_tls())
        )

    @property
    def scope(self) -> str:
        return self.session.scope

    @property
    def bookmark(self) -> str | None:
        """The bookmark of this client's latest write (sent back with every request)."""
        return self.session.bookmark

    def close(self) -> None:
        if self._owned:
            self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            response = self.http.request(
                call.method, call.path, json=call.body, headers=self.session.headers()
            )
            delay = self.session.retry_delay(response, attempt)
            if delay is None:
                return self.session.read(call, response)
            attempt += 1
            time.sleep(delay)

    def remember(
        self,
        content: str,
        *,
        pipeline: bool | None = None,
        **fields: Any,
    ) -> Decision:
        """Write one memory through the pipeline; `fields` are those of `MemoryInput`
        (subject, predicate, object, tags, importance, partition, metadata, ...).
        `pipeline=False` is the straight-through path and `trusted=False` holds the memory for
        review; both go through GraphQL (REST has neither switch)."""
        item = MemoryInput(content, **fields)
        if pipeline is not None or item.trusted is not None:
            return self._run(_ops.remember_graphql(self.scope, item, pipeline=pipeline))
        return self._run(_ops.remember(item))

    def remember_many(self, items: Sequence[MemoryInput | Mapping[str, Any]]) -> list[Decision]:
        """One decision per item, in input order; one bad item refuses the whole batch
        (ValidationError whose field is `memories[i].<field>`) and nothing is written."""
        return self._run(_ops.remember_many(items))

    def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        partitions: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        weights: Mapping[str, float] | None = None,
        prev_turns: int = 0,
        next_turns: int = 0,
        min_score: float = 0.0,
        standing_limit: int = 5,
        thread: bool = False,
    ) -> SearchResult:
        """Hybrid search (full-text + vector); weights: relevance / importance / recency.
        `min_score` leaves out hits whose `relevance` (0..1, docs/search.md) is below it;
        `standing` holds up to `standing_limit` of the user's standing instructions and
        preferences that bear on the query. `thread` returns the top_k facts of the query's
        topic in the order they were said, for answers spread over a conversation."""
        return self._run(
            _ops.search(
                query,
                top_k=top_k,
                partitions=partitions,
                tags=tags,
                weights=weights,
                prev_turns=prev_turns,
                next_turns=next_turns,
                min_score=min_score,
                standing_limit=standing_limit,
                thread=thread,
            )
        )

    def get(
        self, fact_id: str, *, as_of: datetime | None = None, include_quarantined: bool = False
    ) -> Fact | None:
        """A fact by id; None when missing, forgotten or quarantined (unless asked for)."""
        return self._run(
            _ops.get(self.scope, fact_id, as_of=as_of, include_quarantined=include_quarantined)
        )

    def standing(self, *, kind: str | None = None) -> list[Standing]:
        """The scope's standing instructions and preferences, newest first (`kind`:
        "instruction" or "preference" alone): what an agent may put in every prompt."""
        return self._run(_ops.standing(kind))

    def history(self, fact_id: str) -> list[Fact]:
        """The supersede chain the fact belongs to, oldest first (NotFoundError if none)."""
        return self._run(_ops.history(fact_id))

    def forget(self, fact_id: str, *, reason: str = "forgotten") -> Fact:
        return self._run(_ops.forget(self.scope, fact_id, reason))

    def supersede(
        self, fact_id: str, content: str, *, reason: str = "superseded by the caller", **fields: Any
    ) -> Decision:
        """Replace an active fact with a new one and chain them, whatever the predicate."""
        return self._run(
            _ops.supersede(self.scope, fact_id, MemoryInput(content, **fields), reason)
        )

    def timeline(
        self,
        *,
        first: int = 10,
        after: str | None = None,
        partition: str | None = None,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> FactPage:
        """Active facts, newest first; pass `next_cursor` as `after` for the next page."""
        return self._run(
            _ops.timeline(
                self.scope,
                first=first,
                after=after,
                partition=partition,
                session_id=session_id,
                since=since,
                until=until,
            )
        )

    def review_queue(self, *, first: int = 20, after: str | None = None) -> FactPage:
        """Quarantined facts waiting for review, oldest first."""
        return self._run(_ops.review_queue(self.scope, first=first, after=after))

    def validate(self, fact_id: str, *, reason: str = "validated") -> Decision:
        """Promote a quarantined fact (it then goes through the contradiction check)."""
        return self._run(_ops.validate(self.scope, fact_id, reason))

    def reject(self, fact_id: str, *, reason: str = "rejected") -> Fact:
        """Refuse a quarantined fact; it is kept as forgotten."""
        return self._run(_ops.reject(self.scope, fact_id, reason))

    def graphql(self, query: str, variables: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Any GraphQL operation (`data` of the answer); errors raise FactgraphError."""
        return self._run(_ops.raw_graphql(query, variables))


class AsyncClient:
    """The asyncio twin of `Client`: same arguments, same methods, awaited.

    At most `max_in_flight` requests are sent at once; more wait their turn here. The service
    refuses requests past its own queue bound (FACTGRAPH_MAX_QUEUE, 503), so an agent firing a
    hundred coroutines at it would otherwise spend its retries on refusals.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        *,
        scope: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        max_retry_wait: float = 30.0,
        http: httpx.AsyncClient | None = None,
        max_in_flight: int = 4,
    ) -> None:
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be >= 1")
        self.session = Session(
            scope=scope, api_key=api_key, retries=retries, max_retry_wait=max_retry_wait
        )
        self._in_flight = asyncio.Semaphore(max_in_flight)
        self._owned = http is None
        self.http = (
            http
            if http is not None
            else httpx.AsyncClient(base_url=base_url, timeout=timeout, verify=_tls())
        )

    @property
    def scope(self) -> str:
        return self.session.scope

    @property
    def bookmark(self) -> str | None:
        return self.session.bookmark

    async def aclose(self) -> None:
        if self._owned:
            await self.http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _run(self, call: Call[T]) -> T:
        attempt = 0
        while True:
            async with self._in_flight:
                response = await self.http.request(
                    call.method, call.path, json=call.body, headers=self.session.headers()
                )
            delay = self.session.retry_delay(response, attempt)
            if delay is None:
                return self.session.read(call, response)
            attempt += 1
            await asyncio.sleep(delay)

    async def remember(
        self,
        content: str,
        *,
        pipeline: bool | None = None,
        **fields: Any,
    ) -> Decision:
        """Write one memory through the pipeline; `fields` are those of `MemoryInput`
        (subject, predicate, object, tags, importance, partition, metadata, ...).
        `pipeline=False` is the straight-through path and `trusted=False` holds the memory for
        review; both go through GraphQL (REST has neither switch)."""
        item = MemoryInput(content, **fields)
        if pipeline is not None or item.trusted is not None:
            return await self._run(_ops.remember_graphql(self.scope, item, pipeline=pipeline))
        return await self._run(_ops.remember(item))

    async def remember_many(
        self, items: Sequence[MemoryInput | Mapping[str, Any]]
    ) -> list[Decision]:
        """One decision per item, in input order; one bad item refuses the whole batch
        (ValidationError whose field is `memories[i].<field>`) and nothing is written."""
        return await self._run(_ops.remember_many(items))

    async def search(
        self,
        query: str,
        *,
        top_k: int = 10,
        partitions: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        weights: Mapping[str, float] | None = None,
        prev_turns: int = 0,
        next_turns: int = 0,
        min_score: float = 0.0,
        standing_limit: int = 5,
        thread: bool = False,
    ) -> SearchResult:
        """Hybrid search (full-text + vector); weights: relevance / importance / recency.
        `min_score` leaves out hits whose `relevance` (0..1, docs/search.md) is below it;
        `standing` holds up to `standing_limit` of the user's standing instructions and
        preferences that bear on the query. `thread` returns the top_k facts of the query's
        topic in the order they were said, for answers spread over a conversation."""
        return await self._run(
            _ops.search(
                query,
                top_k=top_k,
                partitions=partitions,
                tags=tags,
                weights=weights,
                prev_turns=prev_turns,
                next_turns=next_turns,
                min_score=min_score,
                standing_limit=standing_limit,
                thread=thread,
            )
        )

    async def get(
        self, fact_id: str, *, as_of: datetime | None = None, include_quarantined: bool = False
    ) -> Fact | None:
        """A fact by id; None when missing, forgotten or quarantined (unless asked for)."""
        return await self._run(
            _ops.get(self.scope, fact_id, as_of=as_of, include_quarantined=include_quarantined)
        )

    async def standing(self, *, kind: str | None = None) -> list[Standing]:
        """The scope's standing instructions and preferences, newest first (`kind`:
        "instruction" or "preference" alone): what an agent may put in every prompt."""
        return await self._run(_ops.standing(kind))

    async def history(self, fact_id: str) -> list[Fact]:
        """The supersede chain the fact belongs to, oldest first (NotFoundError if none)."""
        return await self._run(_ops.history(fact_id))

    async def forget(self, fact_id: str, *, reason: str = "forgotten") -> Fact:
        return await self._run(_ops.forget(self.scope, fact_id, reason))

    async def supersede(
        self, fact_id: str, content: str, *, reason: str = "superseded by the caller", **fields: Any
    ) -> Decision:
        """Replace an active fact with a new one and chain them, whatever the predicate."""
        return await self._run(
            _ops.supersede(self.scope, fact_id, MemoryInput(content, **fields), reason)
        )

    async def timeline(
        self,
        *,
        first: int = 10,
        after: str | None = None,
        partition: str | None = None,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> FactPage:
        """Active facts, newest first; pass `next_cursor` as `after` for the next page."""
        return await self._run(
            _ops.timeline(
                self.scope,
                first=first,
                after=after,
                partition=partition,
                session_id=session_id,
                since=since,
                until=until,
            )
        )

    async def review_queue(self, *, first: int = 20, after: str | None = None) -> FactPage:
        """Quarantined facts waiting for review, oldest first."""
        return await self._run(_ops.review_queue(self.scope, first=first, after=after))

    async def validate(self, fact_id: str, *, reason: str = "validated") -> Decision:
        """Promote a quarantined fact (it then goes through the contradiction check)."""
        return await self._run(_ops.validate(self.scope, fact_id, reason))

    async def reject(self, fact_id: str, *, reason: str = "rejected") -> Fact:
        """Refuse a quarantined fact; it is kept as forgotten."""
        return await self._run(_ops.reject(self.scope, fact_id, reason))

    async def graphql(
        self, query: str, variables: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Any GraphQL operation (`data` of the answer); errors raise FactgraphError."""
        return await self._run(_ops.raw_graphql(query, variables))
