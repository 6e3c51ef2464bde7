"""npm packages a test drives from node (an SDK's own client), installed once into the
git-ignored `.factgraph/npm/<name>/` and reused while their spec is unchanged.

Made under a file lock (two test workers may ask at once); `npm install` with no lock file and
no audit takes about 10 s from the registry, nothing once made.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

HOME = Path(__file__).resolve().parent.parent / ".factgraph" / "npm"


def installed(name: str, spec: str) -> Path:
    """A folder (`.factgraph/npm/NAME`) whose node_modules hold `spec` (`pkg@range`)."""
    folder = HOME / name
    marker = folder / ".spec"
    HOME.mkdir(parents=True, exist_ok=True)
    with (HOME / f".{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (marker.is_file() and marker.read_text() == spec):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            (folder / "package.json").write_text('{"private": true}\n')
            npm = shutil.which("npm") or "npm"
            command = [
                npm,
                "install",
                "--prefix",
                str(folder),
                spec,
                "--no-audit",
                "--no-fund",
                "--no-package-lock",
                "--loglevel=error",
            ]
            done = subprocess.run(command, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
            marker.write_text(spec)
    return folder
