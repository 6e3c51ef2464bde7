"""Configuration read from the environment, in one place, with documented defaults.

Every knob of factgraph is an environment variable so that the same code runs from `make run`,
from the test suite, from docker-compose and from a user's own deployment without edits. The
table in docs/configuration.md is the user-facing copy of this module (tests/test_docs.py checks
that every variable read here has a row there).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from graph.platform.neo4j_versions import parse as parse_version

DEFAULT_LOCAL_PASSWORD = "factgraph-local"
DEFAULT_NEO4J_VERSION = "5.26.30"
# The Browser is released apart from the server: 5.24.0 is the newest on Maven Central (checked
# 2026-11 with 2026.08.1 current) and serves both lines.
DEFAULT_BROWSER_VERSION = "5.24.0"
# The newest calendar version on Maven Central, measured against 5.26 (docs/neo4j-versions.md):
# FACTGRAPH_NEO4J_VERSION=2026.08.1 (or any 2025.x / 2026.x) selects that line.
CALENDAR_NEO4J_VERSION = "2026.08.1"
# Admission control: API requests admitted at once (running + waiting for a worker thread),
# per CPU. Past it a request is refused at once with 503 + Retry-After. On 2 cores throughput
# stops growing at ~8 admitted while latency keeps growing with the queue (bench/results/load.md).
MAX_QUEUE_PER_CPU = 4


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


DEFAULT_MAX_QUEUE = MAX_QUEUE_PER_CPU * _cpus()
# Long-lived connections (MCP's event stream, GraphQL's WebSocket) are bounded apart from the
# requests (resolvers/http/streams.py): an idle stream costs a task and a ping every 15 s, not a
# worker, so hundreds are cheap; one key (or address) may hold a few of them.
DEFAULT_MAX_STREAMS = 256
DEFAULT_MAX_STREAMS_PER_CLIENT = 16
DEFAULT_STREAM_IDLE_TIMEOUT = 300
# How long a request waits on a Neo4j that does not answer before it is told 503
# DATABASE_UNAVAILABLE (graph/storage/liveness.py).
DEFAULT_DB_TIMEOUT = 2.0
# How long a lighter tenant's request may wait for an admission slot beside another tenant's
# flood (resolvers/http/admission.py): as long as a request may wait on a silent Neo4j, so a
# refusal still comes within the same bound.
DEFAULT_ADMISSION_WAIT = 2.0
# Longer than any common client keeps an idle connection (httpx 5 s, Go 90 s, load balancers
# 60 s): a client must be the one to close an idle connection, or its next request can cross
# the server's close on the wire and get no answer at all (bench/results/load.md).
DEFAULT_KEEP_ALIVE = 120
# What NEO4J_URI may start with: bolt:// reaches one server; neo4j:// routes (a cluster or Aura:
# reads to members that serve reads, writes to the leader); +s is TLS with a verified
# certificate, +ssc TLS with any certificate (self-signed).
NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def _env(name: str, default: str) -> str:
    value = os.environ.get(name)
    return default if value is None or value == "" else value


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from exc


def _env_positive(name: str, default: int) -> int:
    value = _env_int(name, default)
    if value < 1:
        raise ValueError(f"{name} must be 1 or more, got {value}")
    return value


def _env_nonnegative(name: str, default: int) -> int:
    value = _env_int(name, default)
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, got {value}")
    return value


def _optional_nonnegative(name: str) -> int | None:
    """An integer of 0 or more, or None when the variable is unset (a derived default)."""
    if not os.environ.get(name):
        return None
    return _env_nonnegative(name, 0)


def _env_seconds(name: str, default: float, *, zero: bool = False) -> float:
    """A duration in seconds, above zero (fractions allowed; 0 too if `zero`)."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number of seconds, got {raw!r}") from exc
    if zero and value == 0:
        return value
    if not value > 0 or value == float("inf"):
        floor = "0 or more" if zero else "above 0"
        raise ValueError(f"{name} must be a number of seconds {floor}, got {raw!r}")
    return value


def _memory_size(name: str) -> str:
    """`auto` or a size Neo4j understands (`512m`, `2g`); anything else fails at start-up."""
    value = _env(name, "auto").strip().lower()
    if value != "auto" and not re.fullmatch(r"[0-9]+[kmg]?", value):
        raise ValueError(f"{name} must be 'auto' or a size such as 512m or 2g, got {value!r}")
    return value


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class LocalNeo4jSettings:
    """How the project-provisioned Neo4j is laid out and started."""

    version: str = DEFAULT_NEO4J_VERSION
    browser_version: str = DEFAULT_BROWSER_VERSION
    home: Path = Path(".factgraph/neo4j")
    bolt_port: int = 7687
    http_port: int = 7474
    # "auto": sized from the store and the machine at each start (graph/platform/neo4j_memory.py).
    heap: str = "auto"
    pagecache: str = "auto"
    start_timeout: float = 120.0
    # A server for a test run (FACTGRAPH_NEO4J_SHORT_LIVED): started on the JIT's first tier
    # only and stopped without Bolt's quiet periods (graph/platform/neo4j_local.py).
    short_lived: bool = False
    # Neo4j's HTTP server and Browser; the suite's throwaway servers go without them.
    http: bool = True


DEFAULT_SINGLE_VALUED = (
    "lives_in",
    "works_at",
    "age",
    "born_in",
    "birthday",
    "job_title",
    "employer",
    "email",
    "phone",
    "married_to",
    "nationality",
    "home_city",
    "located_in",
    "name",
    "status",
)


# The near-duplicate cosine of a model without a calibrated one (graph/platform/embedding.py
# KNOWN_MODELS).
DEFAULT_NEAR_DUPLICATE = 0.95


@dataclass(frozen=True)
class PipelineSettings:
    """Policy of the write pipeline (graph/write/pipeline.py); each knob has an env variable."""

    enabled: bool = True
    # None: the embedding model's own calibrated cosine (graph/platform/embedding.py KNOWN_MODELS,
    # 0.95 for a model not in the table), set by graph.memory.Memory.
    near_duplicate_threshold: float | None = None
    near_duplicate_action: str = "dedup"
    single_valued: frozenset[str] = frozenset(DEFAULT_SINGLE_VALUED)
    untrusted_sources: frozenset[str] = frozenset({"web", "email", "tool", "untrusted"})

    def near_duplicate(self) -> float:
        """The threshold in force (0.95 when no model has set one yet)."""
        if self.near_duplicate_threshold is None:
            return DEFAULT_NEAR_DUPLICATE
        return self.near_duplicate_threshold

    @classmethod
    def from_env(cls) -> PipelineSettings:
        action = _env("FACTGRAPH_NEAR_DUPLICATE_ACTION", "dedup")
        if action not in {"dedup", "merge"}:
            raise ValueError(
                f"FACTGRAPH_NEAR_DUPLICATE_ACTION must be dedup or merge, got {action!r}"
            )
        raw = _env("FACTGRAPH_NEAR_DUPLICATE_THRESHOLD", "").strip()
        threshold: float | None = None
        if raw:
            try:
                threshold = float(raw)
            except ValueError:
                raise ValueError(
                    f"FACTGRAPH_NEAR_DUPLICATE_THRESHOLD must be a number, got {raw!r}"
                ) from None
            if not 0 < threshold <= 1:
                raise ValueError("FACTGRAPH_NEAR_DUPLICATE_THRESHOLD must be in (0, 1]")
        return cls(
            enabled=_env_bool("FACTGRAPH_PIPELINE", True),
            near_duplicate_threshold=threshold,
            near_duplicate_action=action,
            single_valued=_env_set("FACTGRAPH_SINGLE_VALUED", DEFAULT_SINGLE_VALUED),
            untrusted_sources=_env_set(
                "FACTGRAPH_UNTRUSTED_SOURCES", ("web", "email", "tool", "untrusted")
            ),
        )


def _env_set(name: str, default: tuple[str, ...]) -> frozenset[str]:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return frozenset(default)
    return frozenset(item.strip().casefold() for item in raw.split(",") if item.strip())


@dataclass(frozen=True)
class LLMSettings:
    """An OpenAI-compatible chat-completions endpoint for deep recall (graph/recall/).

    Absent (no base URL) by default: deep recall then makes no network call at all.
    """

    base_url: str | None = None
    api_key: str | None = None
    model: str = "gpt-4o-mini"
    timeout: float = 10.0
    max_retries: int = 2
    offline_grader: bool = False

    @property
    def configured(self) -> bool:
        return bool(self.base_url)

    @classmethod
    def from_env(cls) -> LLMSettings:
        raw_timeout = _env("FACTGRAPH_LLM_TIMEOUT", "10")
        try:
            timeout = float(raw_timeout)
        except ValueError:
            raise ValueError(
                f"FACTGRAPH_LLM_TIMEOUT must be seconds, got {raw_timeout!r}"
            ) from None
        return cls(
            base_url=os.environ.get("FACTGRAPH_LLM_BASE_URL") or None,
            api_key=os.environ.get("FACTGRAPH_LLM_API_KEY") or None,
            model=_env("FACTGRAPH_LLM_MODEL", "gpt-4o-mini"),
            timeout=timeout,
            max_retries=_env_int("FACTGRAPH_LLM_MAX_RETRIES", 2),
            offline_grader=_env_bool("FACTGRAPH_OFFLINE_GRADER", False),
        )


EXPIRY_ACTIONS = ("hide", "forget", "purge", "off")


@dataclass(frozen=True)
class ConsolidationSettings:
    """The background consolidator (graph/consolidation/, docs/consolidation.md).

    Writes always queue their facts; these knobs say whether `serve` works the queue and which
    enrichers run. The defaults follow bench/results/locomo-dev.json's ablation rows.
    """

    worker: bool = True  # FACTGRAPH_CONSOLIDATE: the worker inside `factgraph serve`
    # FACTGRAPH_CONSOLIDATE_TIME: relative dates resolved into the index text. Off by default:
    # on LoCoMo dev it lifted temporal questions (R@10 0.891 -> 0.896) but lost more elsewhere
    # (overall 0.813 -> 0.806, bench/results/locomo-dev.md "consolidator: time enricher").
    time: bool = False
    mentions: bool = True  # FACTGRAPH_CONSOLIDATE_MENTIONS: known entities' names linked
    expiry: str = "hide"  # FACTGRAPH_CONSOLIDATE_EXPIRY: hide | forget | purge | off
    batch_size: int = 50  # facts per transaction (a kill loses at most one batch's work)
    # Share of one core the worker may use: after a batch that took t seconds it sleeps
    # t * (1 - share) / share. Its thread also runs at nice +10.
    cpu_share: float = 0.25
    idle_seconds: float = 2.0  # the pause between looks at an empty queue
    # Health reports the worker stalled when work is queued and no batch finished for this long.
    stall_seconds: float = 300.0
    # The LLM enrichers: only with FACTGRAPH_LLM_BASE_URL set, and off unless turned on (they
    # call the model once per turn each and have no measurement here to make them a default).
    extract: bool = False  # FACTGRAPH_CONSOLIDATE_EXTRACT: atomic facts drawn from turns
    situate: bool = False  # FACTGRAPH_CONSOLIDATE_CONTEXT: a situating line per turn
    # Sources whose synthesised facts go live at once; from any other source they are
    # quarantined for the validation workflow (FACTGRAPH_CONSOLIDATE_TRUSTED_SOURCES).
    trusted_sources: frozenset[str] = frozenset()

    @classmethod
    def from_env(cls) -> ConsolidationSettings:
        share = _env_float("FACTGRAPH_CONSOLIDATE_CPU_SHARE", 0.25)
        if not 0 < share <= 1:
            raise ValueError(f"FACTGRAPH_CONSOLIDATE_CPU_SHARE must be in (0, 1], got {share}")
        batch = _env_int("FACTGRAPH_CONSOLIDATE_BATCH", 50)
        if not 1 <= batch <= 1000:
            raise ValueError(f"FACTGRAPH_CONSOLIDATE_BATCH must be 1..1000, got {batch}")
        return cls(
            worker=_env_bool("FACTGRAPH_CONSOLIDATE", True),
            time=_env_bool("FACTGRAPH_CONSOLIDATE_TIME", False),
            mentions=_env_bool("FACTGRAPH_CONSOLIDATE_MENTIONS", True),
            expiry=_choice("FACTGRAPH_CONSOLIDATE_EXPIRY", "hide", EXPIRY_ACTIONS),
            batch_size=batch,
            cpu_share=share,
            idle_seconds=max(0.05, _env_float("FACTGRAPH_CONSOLIDATE_IDLE", 2.0)),
            stall_seconds=max(1.0, _env_float("FACTGRAPH_CONSOLIDATE_STALL", 300.0)),
            extract=_env_bool("FACTGRAPH_CONSOLIDATE_EXTRACT", False),
            situate=_env_bool("FACTGRAPH_CONSOLIDATE_CONTEXT", False),
            trusted_sources=_env_set("FACTGRAPH_CONSOLIDATE_TRUSTED_SOURCES", ()),
        )


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number, got {raw!r}") from None


@dataclass(frozen=True)
class Settings:
    """Everything the service needs to know to connect, embed and serve."""

    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: str = DEFAULT_LOCAL_PASSWORD
    neo4j_database: str = "neo4j"
    home: Path = Path(".factgraph")
    local: LocalNeo4jSettings = field(default_factory=LocalNeo4jSettings)
    model_name: str = "local/e5-small-v2-int8"
    model_path: Path | None = None
    # None: the model's entry in graph/platform/embedding.py's KNOWN_MODELS (or mean / no prefix).
    model_pooling: str | None = None
    model_query_prefix: str | None = None
    model_doc_prefix: str | None = None
    embed_threads: int = 2
    # Threads of the session that embeds search queries; equal to embed_threads: one session.
    query_threads: int = 1
    # onnxruntime's threads busy-wait between runs (its default) only when this is on; off,
    # they stop when a run returns, leaving the cores to Neo4j (graph/platform/embedding.py
    # STOP_SPINNING).
    embed_spinning: bool = False
    # Texts per model run when many are embedded at once (graph/platform/embedding.py EMBED_BATCH).
    embed_batch: int = 16
    # Most facts one remember_many call takes (graph/write/batch.py).
    batch_max: int = 1_000
    # A search with passages asks its passage list as a second, concurrent query (see
    # graph/search/candidates.fetch_overlapped); off: one query after the embedding.
    search_overlap: bool = True
    # Read the store's hot parts into Neo4j's page cache when the service starts
    # (graph/platform/warmup.py): auto (the local Neo4j only) | on | off.
    warmup: str = "auto"
    # Raise the server's notifications (deprecations above all) as Python warnings
    # (neo4j.warnings.Neo4jWarning): the test suite turns a deprecation into a failure.
    notification_warnings: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    contextual_indexing: str = "late-chunk"
    pipeline: PipelineSettings = field(default_factory=PipelineSettings)
    llm: LLMSettings = field(default_factory=LLMSettings)
    consolidation: ConsolidationSettings = field(default_factory=ConsolidationSettings)
    # Security and operations (issue 9): see docs/operations/security.md and observability.md.
    auth: str = "auto"  # auto: keys required unless bound to loopback | required | off
    max_body_bytes: int = 1_048_576
    log_format: str = "json"
    # Overload (issue 20): see docs/operations/observability.md and resolvers/http/admission.py.
    max_queue: int = DEFAULT_MAX_QUEUE  # in-flight + queued API requests; 0: unbounded
    retry_after: int = 1  # seconds, in the 503 that refuses a request past max_queue
    # Of max_queue, what one tenant (API key; the scope without keys) may hold while others are
    # active (resolvers/http/admission.py); None: a quarter (2 of 8 on 2 cores).
    max_queue_per_tenant: int | None = None
    # Streams (resolvers/http/streams.py), apart from max_queue; 0: unbounded / never.
    max_streams: int = DEFAULT_MAX_STREAMS
    max_streams_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT
    stream_idle_timeout: int = DEFAULT_STREAM_IDLE_TIMEOUT  # seconds with only keep-alives
    # Seconds a request waits on a silent Neo4j before 503 (graph/storage/liveness.py).
    db_timeout: float = DEFAULT_DB_TIMEOUT
    # Seconds a tenant that is not the heaviest may wait for an admission slot beside another
    # tenant's flood instead of being refused (resolvers/http/admission.py); 0: refused at once.
    admission_wait: float = DEFAULT_ADMISSION_WAIT
    keep_alive: int = DEFAULT_KEEP_ALIVE  # seconds an idle HTTP connection is kept open
    # REST requests that name no scope (the clients we are a drop-in for never send one).
    default_scope: str = "default"
    # Origins (scheme://host[:port]) whose pages may call the API from a browser
    # (FACTGRAPH_CORS_ORIGINS, comma-separated; `*` any origin). None by default: a page on
    # another origin cannot read any answer. See docs/cors-and-subscriptions.md.
    cors_origins: tuple[str, ...] = ()

    @property
    def tenant_queue(self) -> int:
        """Admitted requests one tenant may hold while another is active:
        FACTGRAPH_MAX_QUEUE_PER_TENANT, else a quarter of max_queue (at least 1): a share that
        also shares the CPU (bench/README.md "Fair admission between tenants")."""
        if self.max_queue_per_tenant is not None:
            return self.max_queue_per_tenant
        return max(1, self.max_queue // 4)

    @property
    def uses_local_neo4j(self) -> bool:
        """True when no external server was named, so the project's own Neo4j is used."""
        return self.neo4j_uri is None

    @property
    def bolt_uri(self) -> str:
        if self.neo4j_uri is not None:
            return self.neo4j_uri
        return f"bolt://127.0.0.1:{self.local.bolt_port}"

    def with_overrides(self, **changes: object) -> Settings:
        return replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls) -> Settings:
        home = Path(_env("FACTGRAPH_HOME", ".factgraph")).resolve()
        version = _env("FACTGRAPH_NEO4J_VERSION", DEFAULT_NEO4J_VERSION)
        parse_version(version)  # a clear error at start-up for a value that is no version
        local = LocalNeo4jSettings(
            version=version,
            browser_version=_env("FACTGRAPH_NEO4J_BROWSER_VERSION", DEFAULT_BROWSER_VERSION),
            home=Path(_env("FACTGRAPH_NEO4J_HOME", str(home / "neo4j"))).resolve(),
            bolt_port=_env_int("FACTGRAPH_NEO4J_BOLT_PORT", 7687),
            http_port=_env_int("FACTGRAPH_NEO4J_HTTP_PORT", 7474),
            heap=_memory_size("FACTGRAPH_NEO4J_HEAP"),
            pagecache=_memory_size("FACTGRAPH_NEO4J_PAGECACHE"),
            start_timeout=float(_env_int("FACTGRAPH_NEO4J_START_TIMEOUT", 120)),
            short_lived=_env_bool("FACTGRAPH_NEO4J_SHORT_LIVED", False),
        )
        uri = _neo4j_uri(os.environ.get("NEO4J_URI") or None)
        model_path = os.environ.get("FACTGRAPH_MODEL_PATH") or None
        indexing = _env("FACTGRAPH_CONTEXTUAL_INDEXING", "late-chunk")
        if indexing not in {"late-chunk", "off"}:
            raise ValueError(
                f"FACTGRAPH_CONTEXTUAL_INDEXING must be 'late-chunk' or 'off', got {indexing!r}"
            )
        return cls(
            neo4j_uri=uri,
            neo4j_user=_env("NEO4J_USER", "neo4j"),
            neo4j_password=_env("NEO4J_PASSWORD", DEFAULT_LOCAL_PASSWORD),
            neo4j_database=_env("NEO4J_DATABASE", "neo4j"),
            home=home,
            local=local,
            model_name=_env("FACTGRAPH_MODEL", "local/e5-small-v2-int8"),
            model_path=Path(model_path).resolve() if model_path else None,
            model_pooling=_optional_choice("FACTGRAPH_MODEL_POOLING", ("cls", "mean")),
            # Set but empty means "no prefix" (overrides a known model's own prefix).
            model_query_prefix=os.environ.get("FACTGRAPH_MODEL_QUERY_PREFIX"),
            model_doc_prefix=os.environ.get("FACTGRAPH_MODEL_DOC_PREFIX"),
            embed_threads=_env_int("FACTGRAPH_EMBED_THREADS", 2),
            query_threads=_env_int("FACTGRAPH_QUERY_THREADS", 1),
            embed_spinning=_env_bool("FACTGRAPH_EMBED_SPINNING", False),
            embed_batch=_env_positive("FACTGRAPH_EMBED_BATCH", 16),
            batch_max=_env_positive("FACTGRAPH_BATCH_MAX", 1_000),
            search_overlap=_env_bool("FACTGRAPH_SEARCH_OVERLAP", True),
            warmup=_choice("FACTGRAPH_WARMUP", "auto", ("auto", "on", "off")),
            notification_warnings=_env_bool("FACTGRAPH_NEO4J_NOTIFICATION_WARNINGS", False),
            host=_env("FACTGRAPH_HOST", "127.0.0.1"),
            port=_env_int("FACTGRAPH_PORT", 8000),
            contextual_indexing=indexing,
            pipeline=PipelineSettings.from_env(),
            llm=LLMSettings.from_env(),
            consolidation=ConsolidationSettings.from_env(),
            auth=_choice("FACTGRAPH_AUTH", "auto", ("auto", "required", "off")),
            max_body_bytes=_env_int("FACTGRAPH_MAX_BODY_BYTES", 1_048_576),
            log_format=_choice("FACTGRAPH_LOG_FORMAT", "json", ("json", "text")),
            max_queue=_env_nonnegative("FACTGRAPH_MAX_QUEUE", DEFAULT_MAX_QUEUE),
            retry_after=max(1, _env_nonnegative("FACTGRAPH_RETRY_AFTER", 1)),
            keep_alive=max(1, _env_nonnegative("FACTGRAPH_KEEP_ALIVE", DEFAULT_KEEP_ALIVE)),
            max_queue_per_tenant=_optional_nonnegative("FACTGRAPH_MAX_QUEUE_PER_TENANT"),
            max_streams=_env_nonnegative("FACTGRAPH_MAX_STREAMS", DEFAULT_MAX_STREAMS),
            max_streams_per_client=_env_nonnegative(
                "FACTGRAPH_MAX_STREAMS_PER_CLIENT", DEFAULT_MAX_STREAMS_PER_CLIENT
            ),
            stream_idle_timeout=_env_nonnegative(
                "FACTGRAPH_STREAM_IDLE_TIMEOUT", DEFAULT_STREAM_IDLE_TIMEOUT
            ),
            db_timeout=_env_seconds("FACTGRAPH_DB_TIMEOUT", DEFAULT_DB_TIMEOUT),
            admission_wait=_env_seconds(
                "FACTGRAPH_ADMISSION_WAIT", DEFAULT_ADMISSION_WAIT, zero=True
            ),
            default_scope=_env("FACTGRAPH_DEFAULT_SCOPE", "default").strip() or "default",
            cors_origins=cors_origins(os.environ.get("FACTGRAPH_CORS_ORIGINS", "")),
        )


_ORIGIN = re.compile(r"https?://[^/\s?#]+", re.IGNORECASE)


def cors_origins(raw: str) -> tuple[str, ...]:
    """FACTGRAPH_CORS_ORIGINS as a tuple of origins; a path or a missing scheme fails at start.

    A browser sends its page's origin without a trailing slash and it is compared exactly, so
    `http://localhost:3000/` would silently match nothing: it is refused instead.
    """
    origins: list[str] = []
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        if item != "*" and not _ORIGIN.fullmatch(item):
            raise ValueError(
                "FACTGRAPH_CORS_ORIGINS must list origins such as http://localhost:3000 "
                f"(scheme, host and port; no path, no trailing slash) or *, got {item!r}"
            )
        origins.append(item.lower())  # browsers send scheme and host in lower case
    return tuple(dict.fromkeys(origins))


def _neo4j_uri(uri: str | None) -> str | None:
    """NEO4J_URI as given, once its scheme is one the driver speaks (else a clear error)."""
    if uri is None:
        return None
    scheme = uri.strip().partition("://")[0].lower()
    if "://" not in uri or scheme not in NEO4J_SCHEMES:
        raise ValueError(
            f"NEO4J_URI must start with one of {', '.join(s + '://' for s in NEO4J_SCHEMES)} "
            f"(neo4j+s:// for Aura), got {uri!r}"
        )
    return uri.strip()


def _choice(name: str, default: str, allowed: tuple[str, ...]) -> str:
    value = _env(name, default).strip().lower()
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _optional_choice(name: str, allowed: tuple[str, ...]) -> str | None:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return None
    return _choice(name, allowed[0], allowed)


def env_flag(name: str, default: bool = False) -> bool:
    """Public wrapper so other modules read boolean switches the same way."""
    return _env_bool(name, default)
