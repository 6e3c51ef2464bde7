"""Causal consistency on a Neo4j cluster: which database state a transaction must wait for.

On a cluster (or Aura) a read is routed to any member that serves reads, and that member may
not have applied the leader's latest write yet. A bookmark names a state of the database; a
transaction handed bookmarks starts only once the member running it has reached them. Two
chains of bookmarks feed every transaction the service opens (`CausalBookmarks`):

- the process's own: each transaction waits for the earlier writes of this process, so the
  Python API (and a client that keeps talking to one replica) reads its own writes. This is
  what the driver's default manager does for `execute_query`, extended to every session;
- the request's (`RequestBookmarks`, reached through a context variable set by the HTTP layer):
  the bookmarks a client sent back from an earlier response, which may come from another
  replica of the service, plus whatever this request's own transactions committed. A request
  that wrote answers with its newest bookmark (resolvers/bookmarks.py), so "write on one
  replica, read on another" sees the write.

On a single server (bolt:// or neo4j:// to one instance) bookmarks are always already reached;
they cost a few bytes per transaction.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from neo4j.api import BookmarkManager

from graph.errors import ValidationError

# The HTTP header (request and response) and the GraphQL response extension carrying them.
HEADER = "X-Neo4j-Bookmark"
EXTENSION = "neo4jBookmark"
# A bookmark is opaque base64-ish text ("FB:kcwQ..." on Neo4j 5); several may be sent, comma
# separated. The bounds keep a hostile header from making every transaction carry a megabyte.
MAX_BOOKMARKS = 16
_BOOKMARK = re.compile(r"^[A-Za-z0-9+/=:_.-]{1,256}$")


class RequestBookmarks:
    """The bookmarks one HTTP request reads at: what the client sent, then what it wrote.

    Shared by the request's worker threads (the context variable holds this one object), so
    updates take a lock.
    """

    def __init__(self, sent: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set(sent)
        self._wrote = False

    @property
    def values(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._values)

    def advance(self, previous: Collection[str], new: Collection[str]) -> None:
        """A transaction that started at `previous` committed at `new`."""
        with self._lock:
            self._values.difference_update(previous)
            self._values.update(new)

    def mark_written(self) -> None:
        with self._lock:
            self._wrote = True

    def to_return(self) -> str | None:
        """The header value a response carries: only a request that wrote hands one back."""
        with self._lock:
            if not self._wrote or not self._values:
                return None
            return ",".join(sorted(self._values))


_current: ContextVar[RequestBookmarks | None] = ContextVar("factgraph_bookmarks", default=None)


def current() -> RequestBookmarks | None:
    return _current.get()


@contextmanager
def request_scope(sent: Iterable[str] = ()) -> Iterator[RequestBookmarks]:
    """Within this block (and the worker threads it hands work to), transactions read at
    least at `sent`, and the request's writes are collected for its response."""
    bookmarks = RequestBookmarks(sent)
    token = _current.set(bookmarks)
    try:
        yield bookmarks
    finally:
        _current.reset(token)


def note_write() -> None:
    """The running request wrote: its response will carry the bookmark."""
    request = _current.get()
    if request is not None:
        request.mark_written()


def parse(values: Iterable[str]) -> list[str]:
    """The bookmarks of `X-Neo4j-Bookmark` header lines (comma separated); ValidationError
    naming the header when one is malformed or there are too many."""
    found: list[str] = []
    for line in values:
        for part in line.split(","):
            value = part.strip()
            if not value:
                continue
            if not _BOOKMARK.match(value):
                raise ValidationError(
                    HEADER,
                    "send back bookmarks as an earlier response returned them (comma separated)",
                )
            found.append(value)
    if len(found) > MAX_BOOKMARKS:
        raise ValidationError(HEADER, f"at most {MAX_BOOKMARKS} bookmarks, got {len(found)}")
    return found


class CausalBookmarks(BookmarkManager):
    """The driver's bookmark manager for this process: its own chain plus the request's.

    Every session and `execute_query` of `graph.db.Database` uses it, so no call site has to
    thread bookmarks through.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: set[str] = set()

    def get_bookmarks(self) -> Collection[str]:
        with self._lock:
            values = set(self._process)
        request = _current.get()
        if request is not None:
            values |= request.values
        return values

    def update_bookmarks(self, previous: Collection[str], new: Collection[str]) -> None:
        if not new:
            return
        with self._lock:
            self._process.difference_update(previous)
            self._process.update(new)
        request = _current.get()
        if request is not None:
            request.advance(previous, new)
