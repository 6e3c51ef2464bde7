"""What the suite fetches on a fresh clone, fetched by `make test` while it lints.

The first test to load the model downloaded it, and the upgrade test (tests/test_neo4j_upgrade.py)
fetched the calendar Neo4j's jars from Maven Central: each held its worker up in the middle of
the run, while ruff, mypy and the docs build leave the network idle (tests/run_suite.sh). Both
are fetched once; on a later run this returns at once. So are the TypeScript client's npm
dependencies (tests/typescript_client.py), when node is on the PATH. A failure here is only
printed: the test that needs the download fetches it again and says what went wrong.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace

from graph.config import CALENDAR_NEO4J_VERSION, Settings
from graph.platform.embedding import KNOWN_MODELS
from graph.platform.neo4j_local import LocalNeo4j
from tests import typescript_client


def fetch_model(settings: Settings) -> None:
    known = KNOWN_MODELS.get(settings.model_name)
    if settings.model_path is None and known is not None and known.source is not None:
        known.source(settings.home / "models" / known.folder)


def fetch_calendar_neo4j(settings: Settings) -> None:
    local = replace(settings.local, version=CALENDAR_NEO4J_VERSION)
    LocalNeo4j(replace(settings, local=local)).provision()


def fetch_typescript_client(settings: Settings) -> None:
    if shutil.which("node") and shutil.which("npm"):
        typescript_client.built()


def main() -> int:
    settings = Settings.from_env()
    for fetch in (fetch_model, fetch_calendar_neo4j, fetch_typescript_client):
        try:
            fetch(settings)
        except Exception as exc:  # the test that needs it reports it properly
            print(f"prefetch: {fetch.__name__}: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
