"""Tracing hooks: named spans around the stages of search and remember, and a request id.

Stages call `with tracing.span("search.vector", k=10): ...`; listeners (Prometheus metrics,
debug logs, an OpenTelemetry bridge an operator may add) receive each finished span. With no
listener a span costs two clock reads, so the hooks can stay in hot paths.

`request_id` is a context variable set by the web layer for each request; it crosses into
Starlette's thread pool with the context, so logs written deep in graph/ carry it too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("factgraph.tracing")

request_id: ContextVar[str | None] = ContextVar("factgraph_request_id", default=None)
_current: ContextVar[Span | None] = ContextVar("factgraph_span", default=None)


@dataclass
class Span:
    """One timed stage; `attributes` may be added to while it runs (e.g. the decision taken)."""

    name: str
    attributes: dict[str, Any] = field(default_factory=dict)
    parent: str | None = None
    request_id: str | None = None
    started: float = 0.0
    duration: float = 0.0
    error: str | None = None

    def set(self, key: str, value: Any) -> None:
        self.attributes[key] = value


Listener = Callable[[Span], None]
_listeners: list[Listener] = []


def add_listener(listener: Listener) -> None:
    """Receive every finished span; adding the same listener twice has no effect."""
    if listener not in _listeners:
        _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[Span]:
    """Time the enclosed block as stage `name`; an exception is recorded and re-raised."""
    parent = _current.get()
    current = Span(
        name=name,
        attributes=dict(attributes),
        parent=parent.name if parent is not None else None,
        request_id=request_id.get(),
        started=time.perf_counter(),
    )
    token = _current.set(current)
    try:
        yield current
    except BaseException as exc:
        current.error = type(exc).__name__
        raise
    finally:
        _current.reset(token)
        current.duration = time.perf_counter() - current.started
        _emit(current)


def record(name: str, seconds: float, **attributes: Any) -> None:
    """Report a stage that was timed elsewhere, as if it had run inside `span(name)`."""
    done = Span(name=name, attributes=dict(attributes), request_id=request_id.get())
    done.duration = seconds
    _emit(done)


def _emit(finished: Span) -> None:
    for listener in list(_listeners):
        try:
            listener(finished)
        except Exception:  # a broken listener must never break a request
            log.exception("tracing listener %r failed", listener)


def current_span() -> Span | None:
    return _current.get()
