"""What MCP tools hand back: small JSON objects a model can read in its context window.

Every fact carries its `id` (to cite, or to pass to `get` / `history` / `forget`); empty and
default fields are left out, times are ISO-8601 strings, scores are rounded. No ranking here:
the order is the one `Memory` returned.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from graph.browse.common import preview
from graph.storage.cursors import Page
from graph.write.facts import Decision, DecisionKind, Fact

if TYPE_CHECKING:  # the search engine loads the tokenizer: not before tools/list
    from graph import browse, contexts
    from graph.search import SearchResult

# The pipeline's decision in the words the tool description uses.
OUTCOME = {
    DecisionKind.INSERT: "stored",
    DecisionKind.DEDUP: "duplicate",
    DecisionKind.MERGE: "merged",
    DecisionKind.SUPERSEDE: "superseded",
    DecisionKind.QUARANTINE: "quarantined",
}


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _compact(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v not in (None, [], {}, "")}


def brief(fact: Fact) -> dict[str, Any]:
    """What a search or a list shows of a fact: enough to use it, with the id to cite."""
    return _compact(
        {
            "id": fact.id,
            "text": fact.text,
            "valid_from": iso(fact.valid_from),
            "session_id": fact.session_id,
            "turn": fact.turn,
            "tags": list(fact.tags),
        }
    )


def full(fact: Fact) -> dict[str, Any]:
    """Everything a caller may want of one fact (`get`), still without internal fields."""
    return _compact(
        {
            **brief(fact),
            "status": fact.status.value,
            "subject": fact.subject,
            "predicate": fact.predicate,
            "object": fact.object,
            "importance": fact.importance,
            "partition": fact.partition,
            "source": fact.source,
            "metadata": fact.metadata,
            "valid_to": iso(fact.valid_to),
            "recorded_at": iso(fact.recorded_at),
            "expires_at": iso(fact.expires_at),
        }
    )


def chain_row(fact: Fact) -> dict[str, Any]:
    return _compact(
        {
            "id": fact.id,
            "text": fact.text,
            "status": fact.status.value,
            "valid_from": iso(fact.valid_from),
            "valid_to": iso(fact.valid_to),
        }
    )


def decision(result: Decision) -> dict[str, Any]:
    out: dict[str, Any] = {
        "decision": OUTCOME[result.kind],
        "reason": result.reason,
        "fact": full(result.fact),
    }
    if result.matched is not None and result.matched.id != result.fact.id:
        key = "supersedes" if result.kind is DecisionKind.SUPERSEDE else "matched"
        out[key] = chain_row(result.matched)
    return out


def search(result: SearchResult) -> dict[str, Any]:
    return {
        "results": [
            {**brief(hit.fact), "score": round(hit.score, 4), "relevance": round(hit.relevance, 4)}
            for hit in result.hits
        ],
        "related": [{**brief(r.fact), "reason": r.reason, "of": r.hit_id} for r in result.related],
        "standing": [
            {**brief(s.fact), "kind": s.fact.standing, "similarity": round(s.similarity, 4)}
            for s in result.standing
        ],
        "answerable": result.answerable,
        "answerability": round(result.answerability, 4),
    }


def timeline(page: browse.TimelinePage) -> dict[str, Any]:
    return {
        "facts": [brief(fact) for fact in page.facts],
        "next_cursor": page.end_cursor if page.has_next_page else None,
    }


def review_queue(page: Page[Fact]) -> dict[str, Any]:
    return {"facts": [full(f) for f in page.items], "next_cursor": page.next_cursor}


# -- the browsing API's shapes (camelCase, as its GraphQL twins) ----------------------------
def lexical_hit(hit: browse.LexicalHit) -> dict[str, Any]:
    return _compact({"id": hit.id, "type": hit.type, "preview": hit.preview, "time": iso(hit.time)})


def recent(page: browse.TimelinePage) -> dict[str, Any]:
    return {
        "items": [
            _compact(
                {
                    "id": fact.id,
                    "type": "fact",
                    "preview": preview(fact.text),
                    "time": iso(fact.valid_from),
                    "sessionId": fact.session_id,
                    "turn": fact.turn,
                }
            )
            for fact in page.facts
        ],
        "nextCursor": page.end_cursor if page.has_next_page else None,
    }


def node(found: browse.BrowseNode) -> dict[str, Any]:
    out: dict[str, Any] = {"id": found.id, "type": found.type}
    if found.fact is not None:
        out["fact"] = full(found.fact)
    if found.entity is not None:
        entity = found.entity
        out["entity"] = _compact(
            {
                "id": entity.id,
                "name": entity.name,
                "canonical": entity.canonical,
                "aliases": list(entity.aliases),
                "type": entity.type,
                "createdAt": iso(entity.created_at),
            }
        )
    out["neighbours"] = [
        _compact({"id": r.id, "edgeType": r.edge_type, "relation": r.relation, "via": r.via})
        for r in found.neighbours
    ]
    return out


def context_ids(context: contexts.ConversationContext) -> list[str]:
    return list(context.exclude_ids)
