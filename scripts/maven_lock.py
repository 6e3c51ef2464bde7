"""Write the lock of a Neo4j version (graph/platform/maven_lock.py) from what Maven resolved.

    FACTGRAPH_NEO4J_VERSION=2026.08.1 .venv/bin/python scripts/maven_lock.py

resolves the version with Maven into a fresh folder (the lock is what Maven itself chose) and
writes graph/platform/maven_locks/neo4j-<version>+browser-<browser>.tsv.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graph.config import Settings
from graph.platform import maven_lock
from graph.platform.neo4j_local import LocalNeo4j


def main() -> int:
    settings = Settings.from_env()
    with tempfile.TemporaryDirectory() as tmp:
        repository = Path(tmp) / "m2"
        os.environ["MAVEN_OPTS"] = (
            f"{os.environ.get('MAVEN_OPTS', '')} -Dmaven.repo.local={repository}"
        )
        home = Path(tmp) / "home"
        local = dataclasses.replace(settings.local, home=home / "neo4j")
        server = LocalNeo4j(dataclasses.replace(settings, home=home, local=local))
        server.provision(locked=False)
        out = maven_lock.LOCKS / f"{server.lock_name}.tsv"
        count = maven_lock.write(server.lib_dir, repository, out)
    print(f"{out}: {count} jars")
    return 0


if __name__ == "__main__":
    sys.exit(main())
