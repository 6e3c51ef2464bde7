"""Reading facts by id: a fact as of a time, its supersede chain, its audit trail and sources,
the review queue, and its raw nearest neighbours."""

from __future__ import annotations

from datetime import datetime

from neo4j import ManagedTransaction

from graph.errors import ValidationError
from graph.reading.standing import Standing
from graph.search.standing import listed
from graph.state import MemoryState
from graph.storage import store
from graph.storage.cursors import Page, decode_cursor, encode_cursor
from graph.storage.store import get_fact
from graph.storage.wire import Vector
from graph.write import validation
from graph.write.facts import Fact, FactStatus
from graph.write.validation import check_id, check_scope

_LIVE = ("active", "quarantined")
MAX_STANDING_LISTED = 1_000


class Reading(MemoryState):
    """`Memory`'s reads by fact id (get, history, neighbours, derived_from, audit_trail) and
    of the review queue (review_queue, review_entries)."""

    def get(
        self,
        scope: str,
        fact_id: str,
        *,
        as_of: datetime | None = None,
        include_quarantined: bool = False,
    ) -> Fact | None:
        """A fact by id; None when missing, forgotten, quarantined, or not valid at `as_of`.

        Without `as_of`, a superseded fact is still returned (by id, with its status), so a
        caller holding an old id learns it was replaced rather than that it never existed.
        """
        check_scope(scope)
        check_id("id", fact_id)
        as_of = validation.parse_time("as_of", as_of)
        fact = get_fact(self.db, scope, fact_id)
        if fact is None or fact.status is FactStatus.FORGOTTEN:
            return None
        if fact.status is FactStatus.QUARANTINED and not include_quarantined:
            return None
        if as_of is not None and not _valid_at(fact, as_of):
            return None
        return fact

    def history(self, scope: str, fact_id: str, *, as_of: datetime | None = None) -> list[Fact]:
        """The supersede chain of a fact, oldest to newest, retired rows included.

        `as_of` keeps the rows that had become true by then (valid_from <= as_of): the chain
        as it could have been told at that moment. Unknown id -> empty list.
        """
        check_scope(scope)
        check_id("id", fact_id)
        as_of = validation.parse_time("as_of", as_of)
        chain = store.history(self.db, scope, fact_id)
        if as_of is not None:
            chain = [fact for fact in chain if fact.valid_from <= as_of]
        return chain

    def review_queue(self, scope: str, *, first: int = 20, after: str | None = None) -> Page[Fact]:
        """Quarantined facts, oldest first, with an opaque cursor for the next page."""
        page = self.review_entries(scope, first=first, after=after)
        return Page(items=[held.fact for held in page.items], next_cursor=page.next_cursor)

    def review_entries(
        self, scope: str, *, first: int = 20, after: str | None = None
    ) -> Page[store.HeldFact]:
        """The review queue with why and when each fact was held (its quarantine event)."""
        check_scope(scope)
        if not 1 <= first <= 100:
            raise ValidationError("first", "must be between 1 and 100")
        key = decode_cursor(after, "after") if after else None
        rows = store.review_queue(self.db, scope, limit=first + 1, after=key)
        items = rows[:first]
        last = items[-1].fact if items else None
        next_cursor = (
            encode_cursor(last.recorded_at, last.id)
            if last is not None and len(rows) > first
            else None
        )
        return Page(items=items, next_cursor=next_cursor)

    def neighbours(
        self,
        scope: str,
        *,
        fact_id: str | None = None,
        text: str | None = None,
        k: int = 10,
    ) -> list[tuple[Fact, float]]:
        """Raw nearest neighbours by cosine (quarantined included), for reconciliation tools.

        Give a fact id (its own vector, itself excluded) or a text (embedded like a query).
        """
        check_scope(scope)
        if not 1 <= k <= 100:
            raise ValidationError("k", "must be between 1 and 100")
        if (fact_id is None) == (text is None):
            raise ValidationError("factId", "give exactly one of factId and text")
        if text is not None:
            if not text.strip():
                raise ValidationError("text", "must not be empty")
            vector = Vector(self.embedder.embed_query(text[: validation.MAX_TEXT_CHARS]))
            exclude: tuple[str, ...] = ()
        else:
            assert fact_id is not None
            check_id("factId", fact_id)
            found = store.fact_vector(self.db, scope, fact_id)
            if found is None:
                return []
            vector, exclude = found, (fact_id,)

        def work(tx: ManagedTransaction) -> list[tuple[Fact, float]]:
            near = store.neighbours(
                tx, scope=scope, vector=vector, k=k, statuses=_LIVE, exclude=exclude
            )
            return [(n.fact, n.cosine) for n in near]

        return self.db.read_tx(work, "neighbours")

    def standing(
        self, scope: str, *, kind: str | None = None, limit: int = MAX_STANDING_LISTED
    ) -> list[Fact]:
        """The scope's active standing instructions and preferences, newest first: what an
        agent may put in every prompt (graph/reading/standing.py). `kind`: "instruction" or
        "preference" alone."""
        check_scope(scope)
        if kind is not None and kind not in {s.value for s in Standing}:
            raise ValidationError("kind", "must be instruction or preference")
        if not 1 <= limit <= MAX_STANDING_LISTED:
            raise ValidationError("limit", f"must be between 1 and {MAX_STANDING_LISTED}")
        return listed(self.db, scope, self.clock(), kind=kind, limit=limit)

    def derived_from(self, scope: str, fact_id: str) -> list[str]:
        """The facts a synthesised fact was drawn from (graph/consolidation/llm_enrichers.py)."""
        check_scope(scope)
        check_id("id", fact_id)
        return store.derived_from(self.db, scope, fact_id)

    def audit_trail(self, scope: str, fact_id: str) -> list[store.AuditEvent]:
        """Every state change of a fact: decision, supersede, forget, validate, reject, purge."""
        check_scope(scope)
        check_id("id", fact_id)
        return store.audit_trail(self.db, scope, fact_id)


def _valid_at(fact: Fact, at: datetime) -> bool:
    return fact.valid_from <= at and (fact.valid_to is None or at < fact.valid_to)
