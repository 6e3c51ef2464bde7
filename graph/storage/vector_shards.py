"""Which of the sixteen vector indexes holds a scope's facts.

Neo4j 5.26 only (Neo4j 2026.01+ filters inside one index: FILTERED_INDEX below). Neo4j 5.26's
vector index ranks everything it holds and cannot filter by scope first. With one
index over every fact, a scope holding 1% of a database had to ask it for a thousand neighbours
to keep about ten of its own, and was then scored exactly instead (10,000 facts beside a million:
~200 ms a search, bench/README.md "A million facts"). So the vectors are split by a hash of the
scope over SHARDS indexes, `fact_embedding_00` .. `fact_embedding_15`, each over one label
(`:VectorShard00` ..) that every fact carries beside `:Fact`: a scope shares its index with the
scopes hashed alike (about 1/16 of the others), and one scope alone in a database, however
large, keeps a whole index to itself, as before.

The shard is a pure function of the scope's name (CRC-32), so every process and every importer
agrees on it without asking the database.
"""

from __future__ import annotations

import zlib

SHARDS = 16
LABEL_PREFIX = "VectorShard"
INDEX_PREFIX = "fact_embedding_"
LABELS = tuple(f"{LABEL_PREFIX}{n:02d}" for n in range(SHARDS))
INDEXES = tuple(f"{INDEX_PREFIX}{n:02d}" for n in range(SHARDS))
LEGACY_INDEX = "fact_embedding"  # the one index over every fact, before shards (stop 28)
# Neo4j 2026.01+ needs no shards: one index over every fact filters by scope and status inside
# the index (cypher/neo4j2026/schema/003_vector.cypher). Facts keep their shard label there.
FILTERED_INDEX = "fact_embedding_filtered"
# The chunks of long texts (graph/write/chunks.py) are split the same way, by their scope's
# shard, over indexes of their own: a fact's first window stays in the fact's index, so that
# a store of short texts searches exactly as before, and its chunk index is empty.
CHUNK_LABEL_PREFIX = "ChunkShard"
CHUNK_INDEX_PREFIX = "chunk_embedding_"
CHUNK_LABELS = tuple(f"{CHUNK_LABEL_PREFIX}{n:02d}" for n in range(SHARDS))
CHUNK_INDEXES = tuple(f"{CHUNK_INDEX_PREFIX}{n:02d}" for n in range(SHARDS))
FILTERED_CHUNK_INDEX = "chunk_embedding_filtered"


def shard_of(scope: str) -> int:
    return zlib.crc32(scope.encode("utf-8")) % SHARDS


def label(scope: str) -> str:
    """The label that puts a fact of `scope` into its shard's vector index."""
    return LABELS[shard_of(scope)]


def index(scope: str) -> str:
    """The vector index that holds the facts of `scope`."""
    return INDEXES[shard_of(scope)]


def index_names(in_index_filters: bool) -> tuple[str, ...]:
    """The facts' vector indexes on a server: the shards on 5.26, the one filtered index on
    2026.01+ (graph/platform/neo4j_versions.py NeoVersion.in_index_filters)."""
    return (FILTERED_INDEX,) if in_index_filters else INDEXES


def index_of(scope: str, in_index_filters: bool) -> str:
    """The vector index that holds a scope's facts on a server of that generation."""
    return FILTERED_INDEX if in_index_filters else index(scope)


def chunk_label(scope: str) -> str:
    """The label that puts a chunk of `scope` into its shard's chunk index."""
    return CHUNK_LABELS[shard_of(scope)]


def chunk_index(scope: str) -> str:
    """The chunk vector index that holds the chunks of `scope` (Neo4j 5.26)."""
    return CHUNK_INDEXES[shard_of(scope)]
