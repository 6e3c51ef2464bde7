"""Choosing the embedding model by configuration: pooling and prefixes of a local model folder.

Every test uses the default model's files (no other model is needed): a copy of its folder
under another FACTGRAPH_MODEL name is a "local folder" whose pooling comes from the settings.
"""

from __future__ import annotations

import math
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

from graph.config import Settings
from graph.embedding import DEFAULT_MODEL, KNOWN_MODELS, Embedder, EmbedderError

TEXT = "Melanie moved from Sweden four years ago."


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(scope="module")
def model_copy(
    embedder: Embedder, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    source = settings.model_path or settings.home / "models" / "all-MiniLM-L6-v2-int8"
    target = tmp_path_factory.mktemp("model-copy")
    for path in source.iterdir():
        shutil.copyfile(path, target / path.name)
    return target


def test_the_default_model_keeps_its_id_pooling_and_no_prefixes(embedder: Embedder) -> None:
    if embedder.name != DEFAULT_MODEL:
        pytest.skip("the suite runs with another model")
    assert embedder.id == "all-MiniLM-L6-v2-int8@384"
    assert (embedder.query_prefix, embedder.doc_prefix) == ("", "")
    assert KNOWN_MODELS[DEFAULT_MODEL].pooling == "mean"


def test_a_local_folder_is_pooled_as_configured(
    embedder: Embedder, settings: Settings, model_copy: Path
) -> None:
    name = f"local/copy-{uuid.uuid4().hex[:8]}"
    mean = Embedder(
        settings.with_overrides(model_name=name, model_path=model_copy, model_pooling="mean")
    )
    cls = Embedder(
        settings.with_overrides(
            model_name=name + "-cls", model_path=model_copy, model_pooling="cls"
        )
    )
    assert mean.id == f"{name.split('/')[-1]}@384"
    assert cosine(mean.embed([TEXT])[0], embedder.embed([TEXT])[0]) > 0.999
    assert cosine(cls.embed([TEXT])[0], embedder.embed([TEXT])[0]) < 0.99


def test_prefixes_go_before_queries_and_stored_texts_and_the_doc_prefix_names_the_id(
    embedder: Embedder, settings: Settings
) -> None:
    if embedder.name != DEFAULT_MODEL:
        pytest.skip("the suite runs with another model")
    prefixed = Embedder(
        settings.with_overrides(model_query_prefix="query: ", model_doc_prefix="passage: ")
    )
    assert cosine(prefixed.embed([TEXT])[0], embedder.embed(["passage: " + TEXT])[0]) > 0.999
    assert cosine(prefixed.embed_query(TEXT), embedder.embed(["query: " + TEXT])[0]) > 0.999
    assert prefixed.id.startswith(embedder.id + "+doc-")
    query_only = Embedder(settings.with_overrides(model_query_prefix="query: "))
    assert query_only.id == embedder.id  # stored vectors are the same


def test_a_local_model_without_its_folder_says_which_variable_to_set(settings: Settings) -> None:
    with pytest.raises(EmbedderError, match="FACTGRAPH_MODEL_PATH"):
        Embedder(settings.with_overrides(model_name="local/e5-small-v2-int8", model_path=None))


def test_pooling_of_a_fastembed_model_is_refused(settings: Settings) -> None:
    with pytest.raises(EmbedderError, match="FACTGRAPH_MODEL_POOLING"):
        Embedder(settings.with_overrides(model_name="BAAI/bge-small-en-v1.5", model_pooling="cls"))


def test_model_settings_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTGRAPH_MODEL_POOLING", "CLS")
    monkeypatch.setenv("FACTGRAPH_MODEL_QUERY_PREFIX", "")
    monkeypatch.setenv("FACTGRAPH_MODEL_DOC_PREFIX", "passage: ")
    settings = Settings.from_env()
    assert settings.model_pooling == "cls"
    assert settings.model_query_prefix == ""  # set but empty: no prefix, the table's overridden
    assert settings.model_doc_prefix == "passage: "
    monkeypatch.setenv("FACTGRAPH_MODEL_POOLING", "max")
    with pytest.raises(ValueError, match="FACTGRAPH_MODEL_POOLING"):
        Settings.from_env()
    monkeypatch.delenv("FACTGRAPH_MODEL_POOLING")
    monkeypatch.delenv("FACTGRAPH_MODEL_QUERY_PREFIX")
    assert Settings.from_env().model_pooling is None
    assert Settings.from_env().model_query_prefix is None
