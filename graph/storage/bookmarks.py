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
  that wrote answers with its newest bookmark, signed (`Signer`, resolvers/http/bookmarks.py), so
  "write on one replica, read on another" sees the write.

On a single server (bolt:// or neo4j:// to one instance) bookmarks are always already reached;
they cost a few bytes per transaction.
"""

from __future__ import annotations

import hashlib
import hmac
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
# Several may be sent, comma separated. The bounds keep a hostile header from making every
# transaction carry a megabyte.
MAX_BOOKMARKS = 16
_RAW = re.compile(r"^[A-Za-z0-9+/=:_-]{1,256}$")
_SIGNED = re.compile(r"^([A-Za-z0-9+/=:_-]{1,256})\.([0-9a-f]{32})$")
SECRET_NAME = "bookmark-signing"


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

    def to_return(self) -> frozenset[str]:
        """What a response hands back (signed, see `Signer`): nothing unless the request wrote."""
        with self._lock:
            return frozenset(self._values) if self._wrote else frozenset()


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


class Signer:
    """Bookmarks as clients see them: each signed with a key all replicas share.

    A bookmark makes Neo4j wait until the member running the transaction has reached it, for
    up to its `bookmark_ready_timeout` (30 s by default). One naming a transaction that never
    happens (forged, or from another database) would hold a worker thread and an admission
    slot that long, and the driver would retry it: so only bookmarks this service handed out
    are taken back. The key lives in Neo4j (`:ServiceSecret`), so every replica has it and
    none needs configuring; the Neo4j credentials are never part of it.
    """

    def __init__(self, key: bytes) -> None:
        self._key = key

    def _mac(self, raw: str) -> str:
        return hmac.new(self._key, raw.encode(), hashlib.sha256).hexdigest()[:32]

    def sign(self, raw: Iterable[str]) -> str:
        """The header value for these bookmarks."""
        return ",".join(f"{value}.{self._mac(value)}" for value in sorted(raw) if _RAW.match(value))

    def verify(self, lines: Iterable[str]) -> list[str]:
        """The bookmarks of `X-Neo4j-Bookmark` header lines; ValidationError naming the header
        when one is malformed or was not signed by this service, or there are too many."""
        found: list[str] = []
        for line in lines:
            for part in line.split(","):
                token = part.strip()
                if not token:
                    continue
                match = _SIGNED.match(token)
                if match is None or not hmac.compare_digest(
                    match.group(2), self._mac(match.group(1))
                ):
                    raise ValidationError(
                        HEADER,
                        "send back the value an earlier response returned in this header "
                        "(comma separated when several)",
                    )
                found.append(match.group(1))
        if len(found) > MAX_BOOKMARKS:
            raise ValidationError(HEADER, f"at most {MAX_BOOKMARKS} bookmarks, got {len(found)}")
        return found


class CausalBookmarks(BookmarkManager):
    """The driver's bookmark manager for this process: its own chain plus the request's.

    Every session and `execute_query` of `graph.storage.db.Database` uses it, so no call site has to
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
