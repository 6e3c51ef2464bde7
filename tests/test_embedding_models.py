"""Choosing the embedding model by configuration: pooling and prefixes of a local model folder.

Every test uses the default model's files (no other model is needed): a copy of its folder
under another FACTGRAPH_MODEL name is a "local folder" whose pooling comes from the settings.
The earlier default, all-MiniLM-L6-v2, is installed with factgraph and checked as well.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import (
    DEFAULT_MODEL,
    KNOWN_MODELS,
    MINILM,
    STOP_SPINNING,
    Embedder,
    EmbedderError,
)

TEXT = "Melanie moved from Sweden four years ago."


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


@pytest.fixture(scope="module")
def model_copy(
    embedder: Embedder, settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    source = settings.model_path or settings.home / "models" / KNOWN_MODELS[embedder.name].folder
    target = tmp_path_factory.mktemp("model-copy")
    for path in source.iterdir():
        shutil.copyfile(path, target / path.name)
    return target


def test_the_default_model_is_e5_small_with_its_prefixes_and_threshold(embedder: Embedder) -> None:
    if embedder.name != DEFAULT_MODEL:
        pytest.skip("the suite runs with another model")
    assert embedder.id == "e5-small-v2-int8@384"
    assert (embedder.query_prefix, embedder.doc_prefix) == ("query: ", "passage: ")
    assert KNOWN_MODELS[DEFAULT_MODEL].pooling == "mean"
    assert embedder.near_duplicate == 0.975


def test_the_earlier_default_minilm_still_loads_with_its_id_and_no_prefixes(
    settings: Settings,
) -> None:
    minilm = Embedder(settings.with_overrides(model_name=MINILM, model_path=None))
    assert minilm.id == "all-MiniLM-L6-v2-int8@384"
    assert (minilm.query_prefix, minilm.doc_prefix) == ("", "")
    assert minilm.near_duplicate == 0.95
    a, b, c = minilm.embed(
        ["Melanie moved from Sweden", "Melanie relocated here from Sweden", "The stock fell 3%"]
    )
    assert cosine(a, b) > 0.7 > 0.3 > cosine(a, c)


def test_the_pipeline_takes_the_models_threshold_unless_one_is_configured(
    memory: Memory, settings: Settings
) -> None:
    assert memory.settings.pipeline.near_duplicate() == memory.embedder.near_duplicate
    fixed = settings.with_overrides(
        pipeline=dataclasses.replace(settings.pipeline, near_duplicate_threshold=0.9)
    )
    assert (
        Memory(memory.db, memory.embedder, settings=fixed).settings.pipeline.near_duplicate() == 0.9
    )


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
    # The copy has no prefix of its own: it is given the default model's document prefix.
    text = embedder.doc_prefix + TEXT
    assert cosine(mean.embed([text])[0], embedder.embed([TEXT])[0]) > 0.999
    assert cosine(cls.embed([text])[0], embedder.embed([TEXT])[0]) < 0.99


def test_prefixes_go_before_queries_and_stored_texts_and_the_doc_prefix_names_the_id(
    embedder: Embedder, settings: Settings
) -> None:
    if embedder.name != DEFAULT_MODEL:
        pytest.skip("the suite runs with another model")
    plain = Embedder(settings.with_overrides(model_query_prefix="", model_doc_prefix=""))
    assert cosine(embedder.embed([TEXT])[0], plain.embed(["passage: " + TEXT])[0]) > 0.999
    assert cosine(embedder.embed_query(TEXT), plain.embed(["query: " + TEXT])[0]) > 0.999
    assert plain.id.startswith(embedder.id + "+doc-")  # another document prefix: other vectors
    query_only = Embedder(settings.with_overrides(model_query_prefix=""))
    assert query_only.id == embedder.id  # stored vectors are the same


def test_a_local_model_without_its_folder_says_which_variable_to_set(settings: Settings) -> None:
    with pytest.raises(EmbedderError, match="FACTGRAPH_MODEL_PATH"):
        Embedder(settings.with_overrides(model_name="local/bge-small-en-v1.5", model_path=None))


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


SPIN_KEY = "session.force_spinning_stop"


def spin_stop(session: Any) -> str:
    """The loaded onnxruntime session's own setting ("default" when not set)."""
    try:
        return str(session.get_session_options().get_session_config_entry(SPIN_KEY))
    except RuntimeError:  # not set: onnxruntime's default, whose threads spin between runs
        return "default"


def sessions(embedder: Embedder) -> tuple[Any, Any]:
    """The batch session and the query session (fastembed keeps each one's session there)."""
    embedder.embed_query("load the query session")
    return embedder._model.model.model, embedder._queries().model.model  # type: ignore[attr-defined]


def test_the_models_threads_stop_spinning_when_a_run_returns_unless_asked_to_spin(
    embedder: Embedder, settings: Settings
) -> None:
    """onnxruntime's threads busy-wait after each run by default, taking the core Neo4j needs
    for the query that follows; factgraph loads the model so that they stop when a run
    returns, and FACTGRAPH_EMBED_SPINNING=1 gives onnxruntime's default back."""
    import onnxruntime

    assert [spin_stop(s) for s in sessions(embedder)] == [STOP_SPINNING[SPIN_KEY]] * 2 == ["1"] * 2
    spinner = Embedder(settings.with_overrides(embed_spinning=True))
    assert [spin_stop(s) for s in sessions(spinner)] == ["default", "default"]
    query = "where did Melanie move from?"
    assert spinner.embed_query(query) == pytest.approx(embedder.embed_query(query), abs=1e-6)
    with pytest.raises(RuntimeError):  # the options class is onnxruntime's own again
        onnxruntime.SessionOptions().get_session_config_entry(SPIN_KEY)


def query_session_loaded(embedder: Embedder) -> bool:
    return embedder._query_model is not None


def test_queries_are_embedded_by_a_session_of_their_own_thread_count_unless_it_is_the_same(
    embedder: Embedder, settings: Settings
) -> None:
    """One thread embeds a short query about as fast as two and leaves the other core to the
    passage list Neo4j answers meanwhile (FACTGRAPH_QUERY_THREADS, 1 by default); with it
    equal to FACTGRAPH_EMBED_THREADS the model is loaded once. The vectors are the same."""
    assert Settings().query_threads == 1
    separate = Embedder(settings.with_overrides(embed_threads=2, query_threads=1))
    assert not query_session_loaded(separate)  # loaded at the first query, or at a service's start
    separate.warm_queries()
    assert query_session_loaded(separate)
    batch, queries = sessions(separate)
    assert batch is not queries
    threads = [s.get_session_options().intra_op_num_threads for s in (batch, queries)]
    assert threads == [2, 1]
    shared = Embedder(settings.with_overrides(embed_threads=2, query_threads=2))
    batch, queries = sessions(shared)
    assert batch is queries
    query = "who paints sunsets by the lake?"
    expected = embedder.embed_query(query)
    for other in (separate, shared):
        assert other.embed_query(query) == pytest.approx(expected, abs=1e-6)
