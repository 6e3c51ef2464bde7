"""Neo4j's jars fetched by a lock file: every jar's path on Maven Central and its SHA-256.

Maven resolves Neo4j's ~220 jars one POM at a time: on an empty local repository that took
153 s here, where the same 159 MB come over HTTPS in under 10 s (the link gave 29 MB/s). On a
fresh clone that was the longest wait of `make run` and of `make test`, which fetches two
versions. For the versions factgraph pins, the resolved list is committed
(`graph/platform/maven_locks/`, written by `scripts/maven_lock.py` from what Maven resolved),
and the jars are fetched in parallel straight from Maven Central (FACTGRAPH_MAVEN_URL names a
mirror), each checked against its pinned SHA-256. Another version, or a failed fetch, falls
back to Maven.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

LOCKS = Path(__file__).with_name("maven_locks")
DEFAULT_MAVEN_URL = "https://repo1.maven.org/maven2"
FETCHERS = 16


class LockedFetchError(RuntimeError):
    """A jar could not be fetched or did not match its pinned hash; the message names it."""


def entries(lock: Path) -> list[tuple[str, str]]:
    """(path in the repository, SHA-256) of every jar the lock names."""
    out: list[tuple[str, str]] = []
    for line in lock.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            path, digest = line.split("\t")
            out.append((path, digest))
    return out


def fetch(lock: Path, lib_dir: Path, version: str) -> None:
    """Fetch the jars a lock names into `lib_dir`, whole or not at all (as Maven's copy is:
    a sibling folder renamed into place, `.complete` written last)."""
    base = (os.environ.get("FACTGRAPH_MAVEN_URL") or DEFAULT_MAVEN_URL).rstrip("/")
    partial = lib_dir.with_name(lib_dir.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)

    def one(entry: tuple[str, str]) -> None:
        path, digest = entry
        url = f"{base}/{path}"
        target = partial / path.rsplit("/", 1)[-1]
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                data = response.read()
        except OSError as exc:
            raise LockedFetchError(f"{url}: {exc}") from exc
        if hashlib.sha256(data).hexdigest() != digest:
            raise LockedFetchError(f"{url}: not the jar pinned in {lock.name} (SHA-256 differs)")
        target.write_bytes(data)

    with ThreadPoolExecutor(max_workers=FETCHERS, thread_name_prefix="maven") as pool:
        list(pool.map(one, entries(lock)))
    shutil.rmtree(lib_dir, ignore_errors=True)
    partial.rename(lib_dir)
    (lib_dir / ".complete").write_text(version)


def write(lib_dir: Path, repository: Path, out: Path) -> int:
    """A lock for the jars of `lib_dir`, found in the Maven `repository` that resolved them."""
    by_name: dict[str, Path] = {}
    for jar in repository.rglob("*.jar"):
        by_name.setdefault(jar.name, jar)
    lines = []
    for jar in sorted(lib_dir.glob("*.jar")):
        source = by_name.get(jar.name)
        if source is None:
            raise LockedFetchError(f"{jar.name} is not in {repository}")
        digest = hashlib.sha256(jar.read_bytes()).hexdigest()
        lines.append(f"{source.relative_to(repository).as_posix()}\t{digest}")
    out.write_text(
        "# Written by scripts/maven_lock.py from what Maven resolved: path on Maven Central, "
        "SHA-256.\n" + "\n".join(lines) + "\n",
        encoding="utf-8",
    )
    return len(lines)
