"""Running the real `factgraph` console script against the suite's Neo4j, as an operator would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from graph.config import Settings
from graph.platform.embedding import KNOWN_MODELS

FACTGRAPH = Path(sys.executable).parent / "factgraph"


def cli_env(settings: Settings, home: Path) -> dict[str, str]:
    """The suite's server and model, with the CLI's own state folder (checkpoints) in `home`."""
    env = {**os.environ, "NEO4J_URI": settings.bolt_uri, "FACTGRAPH_HOME": str(home)}
    if settings.model_path is not None:
        env["FACTGRAPH_MODEL_PATH"] = str(settings.model_path)
    elif (known := KNOWN_MODELS.get(settings.model_name)) is not None and known.folder:
        # A built-in model: the suite's copy, not a second one under the CLI's own home.
        env["FACTGRAPH_MODEL_PATH"] = str(settings.home / "models" / known.folder)
    return env


def factgraph(
    env: dict[str, str], *args: str | Path, check: int | None = 0
) -> subprocess.CompletedProcess[str]:
    """Run `factgraph ARGS`; with `check`, assert the exit status (showing stderr if not)."""
    done = subprocess.run(
        [str(FACTGRAPH), *map(str, args)], env=env, capture_output=True, text=True, check=False
    )
    if check is not None:
        assert done.returncode == check, done.stderr
    return done
