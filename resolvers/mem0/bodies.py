"""The request bodies and query parameters of mem0's routes, as /openapi.json describes them.

requests.py accepts exactly the fields named here (its field lists are read from these
TypedDicts), so the description and the check cannot disagree. Fields mem0 knows that factgraph
has no use for are named too, as accepted and ignored. docs/mem0.md says what each means here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any, Literal, Required, get_args

from pydantic import Field, WithJsonSchema
from typing_extensions import TypedDict

from graph.adapters.mem0.entities import KINDS
from graph.adapters.mem0.reading import MAX_SEARCH_TOP_K
from graph.search.options import MAX_QUERY_CHARS
from resolvers.http.openapi import (
    DATE_TIME,
    JSON,
    Identifier,
    NonEmpty,
    Param,
    Prose,
    body_schema,
    null_is_absent,
    one_of_fields,
    open_body_schema,
    ruled_body_schema,
)

MAX_PAGE_SIZE = 200
MAX_PAGE = 1_000_000
MAX_BATCH = 1_000

# What mem0 takes for a time: a Unix time in seconds or an ISO-8601 date-time; an expiration
# and a filter's bound may also be a day (YYYY-MM-DD).
UnixTime = Annotated[float, Field(ge=0, le=1e11)]
IsoMoment = Annotated[str, WithJsonSchema(DATE_TIME)]
IsoDay = Annotated[str, WithJsonSchema({"type": "string", "format": "date"})]
Moment = UnixTime | IsoMoment
DayOrTime = UnixTime | IsoDay | IsoMoment
# An id in a search or list: a value, a list of values (any of them) or `"*"` (any id of the
# kind), or mem0's operators on it (`{"in": [...]}`, `{"ne": ...}`).
IdentifierList = Annotated[list[Identifier], Field(min_length=1)]
# mem0's operators on an id: at least one of them (`in` is a keyword: the functional form).
Mem0IdOperators = TypedDict(
    "Mem0IdOperators", {"eq": Identifier, "ne": Identifier, "in": IdentifierList}, total=False
)
ruled_body_schema({"minProperties": 1})(Mem0IdOperators)
IdFilter = Identifier | IdentifierList | Mem0IdOperators
Verdict = Literal["POSITIVE", "NEGATIVE", "VERY_NEGATIVE"]
FEEDBACK: tuple[str, ...] = get_args(Verdict)


def fields_of(body: type[Any]) -> tuple[str, ...]:
    """The fields a body TypedDict names, its bases' included."""
    keys: frozenset[str] = body.__required_keys__ | body.__optional_keys__
    return tuple(sorted(keys))


def query_names(params: Iterable[Param]) -> tuple[str, ...]:
    """The query parameters among `params`: those a route accepts."""
    return tuple(p.name for p in params if p.location == "query")


@open_body_schema
class Mem0MessageIn(TypedDict):
    """One message of an add (other fields of the message are ignored)."""

    role: Literal["user", "assistant", "system", "tool"]
    """Who said it: user and assistant messages are stored, system and tool messages not."""
    content: Prose
    """What was said: stored as a memory's text."""


@body_schema
class Mem0Context(TypedDict, total=False):
    """What mem0's 1.x client sends with every call once /v1/ping/ answered it."""

    project_id: Identifier
    """The project the call works on, unless `X-Scope` or `scope` names it."""
    org_id: str
    """Accepted and ignored (factgraph has no organisations)."""


@body_schema
class Mem0Ids(TypedDict, total=False):
    """The ids a memory carries; its owner is its `user_id`, else `agent_id`, `app_id`,
    `run_id`."""

    user_id: Identifier
    """A user (the owner, when given): its memories live in scope `<project>/user:<id>`."""
    agent_id: Identifier
    """An agent."""
    app_id: Identifier
    """An app."""
    run_id: Identifier
    """A run: also the facts' session, the messages its next turns."""


@body_schema
class Mem0IgnoredInAdd(TypedDict, total=False):
    """Fields of mem0's add that factgraph accepts and ignores."""

    async_mode: Any
    """Ignored: an add is done when it answers."""
    output_format: Any
    """Ignored: the answer's shape is the one the route gives."""
    version: Any
    """Ignored."""
    custom_categories: Any
    """Ignored."""
    custom_instructions: Any
    """Ignored."""
    agent_custom_instructions: Any
    """Ignored."""
    includes: Any
    """Ignored."""
    excludes: Any
    """Ignored."""
    immutable: Any
    """Ignored."""
    enable_graph: Any
    """Ignored."""
    structured_data_schema: Any
    """Ignored."""
    prompt_profile_id: Any
    """Ignored."""
    temporal_reasoning: Any
    """Ignored."""
    timezone: Any
    """Ignored."""
    observation_date: Any
    """Ignored."""
    observation_datetime: Any
    """Ignored."""
    source: Any
    """Ignored: memories written through mem0's API have source `mem0`."""


@null_is_absent
@ruled_body_schema(one_of_fields("user_id", "agent_id", "app_id", "run_id", "filters"))
class Mem0AddRequest(Mem0Ids, Mem0Context, Mem0IgnoredInAdd, total=False):
    """An add: the messages, and at least one id (at the top level or in `filters`)."""

    messages: Required[Annotated[list[Mem0MessageIn], Field(min_length=1)]]
    """The messages, each user or assistant message stored as a memory."""
    filters: Mem0Ids
    """The ids again, as mem0's 2.x client sends them: they must agree with the top level."""
    metadata: dict[str, Any] | None
    """Kept with each memory."""
    infer: bool
    """true (the default): through factgraph's write pipeline and queued for the
    consolidator's extraction; false: stored as given."""
    timestamp: Moment | None
    """When it was said: the memories' valid and recorded time."""
    expiration_date: DayOrTime | None
    """The last day the memories are shown (YYYY-MM-DD), or the moment they expire."""


@body_schema
class Mem0Narrowing(TypedDict, total=False):
    """What a search or a list narrows by, besides `filters`."""

    filters: dict[str, Any]
    """mem0's filter grammar: ids, `AND` / `OR` / `NOT`, operators `eq ne in gt gte lt lte
    contains icontains` on ids, times, text, categories and metadata (docs/mem0.md)."""
    user_id: IdFilter
    """A user (as the 1.x client sends ids: at the top level)."""
    agent_id: IdFilter
    """An agent."""
    app_id: IdFilter
    """An app."""
    run_id: IdFilter
    """A run."""
    metadata: dict[str, Any]
    """Only memories whose metadata holds these keys and values."""
    categories: list[NonEmpty]
    """Only memories in one of these categories (`[]`: any)."""


@null_is_absent
@body_schema
class Mem0SearchRequest(Mem0Narrowing, Mem0Context, total=False):
    """A search: the query, whose memories (a filter naming ids), how many."""

    query: Required[Annotated[Prose, Field(max_length=MAX_QUERY_CHARS)]]
    """What to look for: words, a question."""
    top_k: Annotated[int, Field(ge=1, le=MAX_SEARCH_TOP_K, json_schema_extra={"default": 10})]
    """How many hits at most."""
    threshold: Annotated[float, Field(ge=0, le=1)] | None
    """Leave out hits whose `score` (factgraph's relevance, 0..1) is below this."""
    reference_date: DayOrTime | None
    """Read the memories as they stood then (a date is its end)."""
    show_expired: bool
    """Also find expired memories."""
    rerank: Any
    """Ignored."""
    keyword_search: Any
    """Ignored: factgraph's search is always hybrid (full text and meaning)."""
    filter_memories: Any
    """Ignored."""
    fields: Any
    """Ignored."""
    version: Any
    """Ignored."""
    output_format: Any
    """Ignored."""
    async_mode: Any
    """Ignored."""
    latest_only: Any
    """Ignored: a superseded version is never shown."""
    source: Any
    """Ignored."""


@null_is_absent
@body_schema
class Mem0ListRequest(Mem0Narrowing, Mem0Context, total=False):
    """A listing of the live memories a filter (naming ids) matches, newest first."""

    page: Annotated[int, Field(ge=1, le=MAX_PAGE, json_schema_extra={"default": 1})]
    """The page (from 1)."""
    page_size: Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE, json_schema_extra={"default": 100})]
    """Memories per page."""
    keywords: NonEmpty
    """Only memories whose text contains this (case-insensitive)."""
    start_date: DayOrTime
    """Only memories recorded then or later (a date is its whole day)."""
    end_date: DayOrTime
    """Only memories recorded then or earlier."""
    show_expired: bool
    """Also list expired memories."""
    fields: Any
    """Ignored."""
    version: Any
    """Ignored."""
    output_format: Any
    """Ignored."""
    async_mode: Any
    """Ignored."""
    latest_only: Any
    """Ignored: a superseded version is never shown."""
    limit: Any
    """Ignored: pages are `page` and `page_size`."""


@ruled_body_schema(one_of_fields("text", "data", "metadata", "timestamp", "expiration_date"))
class Mem0UpdateRequest(Mem0Context, total=False):
    """A change of a memory: a new text supersedes its current version (the memory keeps its
    id); metadata, timestamp or expiration date alone change in place."""

    text: Prose
    """The new text."""
    data: Prose
    """The new text, as mem0's older clients name it."""
    metadata: dict[str, Any]
    """The new metadata."""
    timestamp: Moment
    """When the memory holds from (with a text: the new version's)."""
    expiration_date: DayOrTime | None
    """The new last day (YYYY-MM-DD) or moment; null clears it."""


@ruled_body_schema(one_of_fields("text", "metadata"))
class Mem0BatchUpdateItem(TypedDict, total=False):
    """One memory of a batch update."""

    memory_id: Required[Identifier]
    text: Prose
    """Its new text (a new version)."""
    metadata: dict[str, Any]
    """Its new metadata."""


@body_schema
class Mem0BatchUpdateRequest(TypedDict):
    """Up to 1,000 memories to change: all are found first, or nothing is written."""

    memories: Annotated[list[Mem0BatchUpdateItem], Field(min_length=1, max_length=MAX_BATCH)]


@body_schema
class Mem0BatchDeleteItem(TypedDict):
    """One memory of a batch delete."""

    memory_id: Identifier


@body_schema
class Mem0BatchDeleteRequest(TypedDict):
    """Up to 1,000 memories to forget: all are found first, or none is forgotten."""

    memories: Annotated[list[Mem0BatchDeleteItem], Field(min_length=1, max_length=MAX_BATCH)]


@body_schema
class Mem0FeedbackRequest(TypedDict, total=False):
    """Feedback on a memory, kept as an audit event on it."""

    memory_id: Required[Identifier]
    feedback: Verdict | None
    feedback_reason: str | None
    """Why, in words."""


# -- query parameters ------------------------------------------------------------------------
PROJECT_PARAMS = (
    Param(
        "X-Scope",
        "header",
        "The project (mem0's `project_id`): its users' memories are in scopes "
        "`<project>/user:<id>`. Else `scope`, `project_id`, the key's project (a key bound to "
        "`<project>/*` alone), else FACTGRAPH_DEFAULT_SCOPE.",
    ),
    Param("scope", "query", "The project, when no `X-Scope` header is sent."),
    Param("project_id", "query", "The project, as mem0's 1.x client sends it."),
    Param("org_id", "query", "Accepted and ignored."),
)
MEMORY_ID = Param("memory_id", "path", "Any version's id of the memory.", Identifier, required=True)
PAGE_PARAMS = (
    Param(
        "page",
        "query",
        "The page (from 1); with `page_size`, a page.",
        Annotated[int, Field(ge=1, le=MAX_PAGE)],
    ),
    Param(
        "page_size",
        "query",
        f"Memories per page (1 to {MAX_PAGE_SIZE}).",
        Annotated[int, Field(ge=1, le=MAX_PAGE_SIZE)],
    ),
)
_ID_PARAMS = tuple(
    Param(f"{kind}_id", "query", f"Only memories carrying this {kind} id (`*`: any).", Identifier)
    for kind in KINDS
)
# A date (YYYY-MM-DD, the whole UTC day) or an ISO-8601 date-time, as a query string.
DayOrMoment = Annotated[
    str,
    WithJsonSchema({"anyOf": [{"type": "string", "format": "date"}, DATE_TIME]}),
]
# A JSON object sent as a query parameter's text (the document says so with `content`).
JsonText = dict[str, Any]
# A memory listing's and a delete-all's metadata filter.
_METADATA_PARAM = Param(
    "metadata",
    "query",
    "A JSON object, as text: metadata keys and values to match.",
    JsonText,
    media_type=JSON,
)
LIST_PARAMS = (
    *PROJECT_PARAMS,
    *_ID_PARAMS,
    *PAGE_PARAMS,
    Param(
        "filters",
        "query",
        "mem0's filter grammar, as JSON text (docs/mem0.md).",
        JsonText,
        media_type=JSON,
    ),
    _METADATA_PARAM,
    Param(
        "categories",
        "query",
        "A category to match; repeat it for any of several.",
        list[NonEmpty],
    ),
    Param(
        "keywords",
        "query",
        "Only memories whose text contains this (case-insensitive).",
        NonEmpty,
    ),
    Param("start_date", "query", "Only memories recorded then or later.", DayOrMoment),
    Param("end_date", "query", "Only memories recorded then or earlier.", DayOrMoment),
    Param("show_expired", "query", "`true`: also list expired memories.", bool),
    *(
        Param(name, "query", "Accepted and ignored.")
        for name in ("fields", "version", "output_format", "async_mode", "latest_only", "limit")
    ),
)
DELETE_ALL_PARAMS = (
    *PROJECT_PARAMS,
    *_ID_PARAMS,
    _METADATA_PARAM,
    Param(
        "filters",
        "query",
        "mem0's filter grammar, as JSON text, instead of the ids.",
        JsonText,
        media_type=JSON,
    ),
)
