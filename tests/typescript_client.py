"""The TypeScript client (client-ts/) made ready for the suite: its npm dependencies installed
once into the git-ignored client-ts/node_modules and kept while package-lock.json is unchanged,
then compiled to dist/.

`npm ci` from the registry takes about 40 s on a fresh clone (npm's cache makes a re-install a
few seconds); the compile takes a second or two. Made under a file lock, as tests/npm_packages.py.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "client-ts"
LOCKS = ROOT / ".factgraph" / "npm"


def npm() -> str:
    return shutil.which("npm") or "npm"


def run(command: list[str], cwd: Path = PACKAGE, timeout: float = 600) -> str:
    """Run a command, and raise with what it printed when it fails."""
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def built() -> Path:
    """client-ts/ with its node_modules installed and dist/ compiled from src/."""
    lock_file = PACKAGE / "package-lock.json"
    wanted = hashlib.sha256(lock_file.read_bytes()).hexdigest()
    marker = PACKAGE / "node_modules" / ".factgraph-installed"
    LOCKS.mkdir(parents=True, exist_ok=True)
    with (LOCKS / ".client-ts.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (marker.is_file() and marker.read_text() == wanted):
            flags = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]
            run([npm(), "ci", *flags])
            marker.write_text(wanted)
        run(["node", "node_modules/typescript/bin/tsc", "-p", "."])
    return PACKAGE
