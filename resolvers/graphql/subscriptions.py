"""GraphQL subscriptions over `graphql-transport-ws`: a scope's changes, and its review queue.

Each subscription reads one `graph.write.events.Subscription` (a bounded queue filled by `Memory`
as writes commit), so a subscriber that reads slowly loses changes, announced by an
`EventsDropped`, and never slows a write.

Keys work as over HTTP. A browser cannot set headers on a WebSocket, so the key may come in
the `connection_init` payload (`{"Authorization": "Bearer <key>"}` or `{"apiKey": "<key>"}`)
as well as in the upgrade request's `Authorization` / `X-API-Key` header. It is verified
once, when the connection is initialised (a wrong key closes the socket with 4403); the
scope and role are checked per subscription, as for a query. A key revoked later keeps the
subscriptions it already holds until the socket closes.

Only subscriptions are served over the socket: queries and mutations there would bypass the
HTTP limits (admission control, body size), so they are answered with an error naming HTTP.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncGenerator, Callable, Mapping
from datetime import datetime
from typing import Annotated, Any, cast

import strawberry
from cross_web import HTTPException
from graphql import GraphQLError, OperationType, get_operation_ast, parse
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLRequestData
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import SubscribeMessage
from strawberry.types import Info
from strawberry.types.unset import UNSET, UnsetType

from graph.auth.roles import Role, Unauthenticated
from graph.errors import DatabaseUnavailable
from graph.observability import metrics
from graph.write import events
from resolvers.graphql.limits import MAX_TOKENS, GuardedGraphQL
from resolvers.graphql.types import DecisionKind, Fact
from resolvers.http.context import (
    Gate,
    api_key_of,
    authorize,
    memory_of,
    principal_of,
    set_principal,
)


@strawberry.enum(description="The operation that changed a fact.")
class FactAction(enum.Enum):
    REMEMBER = "remember"
    SUPERSEDE = "supersede"
    FORGET = "forget"
    VALIDATE = "validate"
    REJECT = "reject"
    PURGE = "purge"


@strawberry.enum(description="How a change moved a fact with respect to the review queue.")
class QueueMove(enum.Enum):
    ENTERED = "entered"
    LEFT = "left"


@strawberry.type(description="One committed change of a fact, as it happened.")
class FactChange:
    scope: str
    action: FactAction
    fact_id: strawberry.ID
    fact: Fact | None = strawberry.field(
        description="The fact after the change; null after a purge."
    )
    decision: DecisionKind | None = strawberry.field(
        description="The pipeline's decision (remember, supersede, validate)."
    )
    matched_id: strawberry.ID | None = strawberry.field(
        description="The fact the decision matched, merged into or superseded."
    )
    reason: str
    actor: str
    at: datetime
    queue: QueueMove | None = strawberry.field(
        description="ENTERED: now waiting for review; LEFT: no longer waiting."
    )

    @classmethod
    def from_domain(cls, change: events.FactChange) -> FactChange:
        return cls(
            scope=change.scope,
            action=FactAction(change.action.value),
            fact_id=strawberry.ID(change.fact_id),
            fact=None if change.fact is None else Fact.from_domain(change.fact),
            decision=None if change.decision is None else DecisionKind(change.decision),
            matched_id=None if change.matched_id is None else strawberry.ID(change.matched_id),
            reason=change.reason,
            actor=change.actor,
            at=change.at,
            queue=None if change.queue is None else QueueMove(change.queue.value),
        )


@strawberry.type(
    description="This subscriber fell behind: `count` changes were not delivered here. "
    "Reload what is shown (e.g. the timeline or the review queue)."
)
class EventsDropped:
    count: int


MemoryEvent = Annotated[FactChange | EventsDropped, strawberry.union("MemoryEvent")]


def _event(item: events.FactChange | events.Dropped) -> FactChange | EventsDropped:
    if isinstance(item, events.Dropped):
        return EventsDropped(count=item.count)
    return FactChange.from_domain(item)


async def _stream(
    connection: HTTPConnection, scope: str, accept: Callable[[events.FactChange], bool]
) -> AsyncGenerator[FactChange | EventsDropped, None]:
    with memory_of(connection).events.subscribe(scope, accept) as subscription:
        while True:
            yield _event(await subscription.next_event())


def _is_admin(connection: HTTPConnection) -> bool:
    gate: Gate = connection.app.state.gate
    key = principal_of(connection)
    return not gate.required or (key is not None and key.role >= Role.ADMIN)


def _everything(_: events.FactChange) -> bool:
    return True


def _outside_review(change: events.FactChange) -> bool:
    return not change.reviewed_content


def _review_queue(change: events.FactChange) -> bool:
    return change.queue is not None


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Every committed write and decision in a scope (remember with its "
        "decision, supersede, forget, validate, reject, purge), from now on. Reader role; "
        "changes of facts held for review reach admin keys only. An EventsDropped says the "
        "subscriber fell behind."
    )
    async def scope_events(self, info: Info, scope: str) -> AsyncGenerator[MemoryEvent, None]:
        connection: HTTPConnection = info.context["request"]
        authorize(connection, scope, "reader")
        accept = _everything if _is_admin(connection) else _outside_review
        return _stream(connection, scope, accept)

    @strawberry.subscription(
        description="Facts entering the review queue (quarantined by a write) and leaving it "
        "(validated, rejected, forgotten or purged). Admin role, as the reviewQueue query."
    )
    async def review_queue_events(
        self, info: Info, scope: str
    ) -> AsyncGenerator[MemoryEvent, None]:
        connection: HTTPConnection = info.context["request"]
        authorize(connection, scope, "admin")
        return _stream(connection, scope, _review_queue)


# -- the socket ------------------------------------------------------------------------------
def key_in(params: Mapping[str, Any]) -> str | None:
    """The key of a connection_init payload: Authorization (Bearer), apiKey or X-API-Key."""
    lowered = {str(k).lower(): v for k, v in params.items()}
    header = lowered.get("authorization")
    if isinstance(header, str) and header[:7].lower() == "bearer ":
        return header[7:].strip() or None
    for name in ("apikey", "x-api-key"):
        value = lowered.get(name)
        if isinstance(value, str) and value:
            return value
    return None


async def authenticate_socket(context: dict[str, Any]) -> None:
    """Verify the key of a graphql-transport-ws connection, as AuthMiddleware does for HTTP.

    Raises ConnectionRejectionError (the socket closes with 4403) for a missing, unknown or
    revoked key, or when the key store cannot be read yet.
    """
    connection: HTTPConnection = context["request"]
    gate: Gate = connection.app.state.gate
    if not gate.required:
        return
    params = context.get("connection_params") or {}
    token = key_in(params) if isinstance(params, Mapping) else None
    try:
        if gate.keys is None:
            raise DatabaseUnavailable("the service is starting; retry shortly")
        key = await run_in_threadpool(gate.keys.authenticate, token or api_key_of(connection))
    except Unauthenticated as exc:
        metrics.AUTH_FAILURES.labels(exc.code).inc()
        raise ConnectionRejectionError({"code": exc.code, "message": str(exc)}) from exc
    except DatabaseUnavailable as exc:
        raise ConnectionRejectionError({"code": exc.code, "message": str(exc)}) from exc
    set_principal(connection.scope, key)


ONLY_SUBSCRIPTIONS = (
    "only subscriptions are served over the WebSocket; send queries and mutations to "
    "/graphql over HTTP POST"
)


class SubscriptionsOnly(BaseGraphQLTransportWSHandler[Any, Any]):
    """graphql-transport-ws, refusing queries and mutations (they belong to HTTP)."""

    async def handle_subscribe(self, message: SubscribeMessage) -> None:
        if self.connection_acknowledged and _is_query_or_mutation(message):
            await self.send_message(
                {
                    "id": message["id"],
                    "type": "error",
                    "payload": [GraphQLError(ONLY_SUBSCRIPTIONS).formatted],
                }
            )
            return
        await super().handle_subscribe(message)


def _is_subscription(data: GraphQLRequestData) -> bool:
    """Whether an HTTP request's operation is a subscription; parses only documents that
    contain the word (the parse result is not kept, so ordinary requests pay nothing)."""
    if not isinstance(data.query, str) or "subscription" not in data.query:
        return False
    try:
        document = parse(data.query, max_tokens=MAX_TOKENS)
        operation = get_operation_ast(document, data.operation_name)
    except Exception:
        return False
    return operation is not None and operation.operation is OperationType.SUBSCRIPTION


def _is_query_or_mutation(message: SubscribeMessage) -> bool:
    try:
        payload = message["payload"]
        document = parse(payload["query"], max_tokens=MAX_TOKENS)
        operation = get_operation_ast(document, payload.get("operationName"))
    except Exception:
        return False
    return operation is not None and operation.operation is not OperationType.SUBSCRIPTION


ONLY_OVER_SOCKETS = (
    "subscriptions are served over a WebSocket at /graphql (protocol graphql-transport-ws), "
    "not over HTTP"
)


class LiveGraphQL(GuardedGraphQL):
    """The /graphql view with its WebSocket side: keys checked at connection_init, and
    subscriptions only; and subscriptions over the socket only.

    Over HTTP strawberry would run a subscription as a query (an internal error) or stream it
    as multipart (holding an admission slot for as long as the client listens): refused with
    400 instead.
    """

    graphql_transport_ws_handler_class = SubscriptionsOnly

    async def execute_operation(
        self,
        request: Any,
        request_adapter: Any,
        request_data: Any,
        context: Any,
        root_value: Any,
        sub_response: Any,
    ) -> Any:
        if isinstance(request_data, GraphQLRequestData) and _is_subscription(request_data):
            raise HTTPException(400, ONLY_OVER_SOCKETS)
        return await super().execute_operation(
            request, request_adapter, request_data, context, root_value, sub_response
        )

    async def on_ws_connect(self, context: dict[str, Any]) -> UnsetType | dict[str, object] | None:
        await authenticate_socket(context)
        return cast(UnsetType, UNSET)
