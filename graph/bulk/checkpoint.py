"""Where a long job got to, so that running the same command again resumes instead of redoing.

A checkpoint is a small JSON file under `$FACTGRAPH_HOME/checkpoints/`, named after the job and
its arguments, replaced atomically after each committed batch. It is only a shortcut: the writes
themselves are idempotent, so a lost or stale checkpoint costs time, never correctness. A
checkpoint for a file that changed since (size or modification time) is ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any


class Checkpoint:
    """The saved state of one job; `state` is whatever the job needs to carry over."""

    def __init__(self, path: Path, identity: dict[str, Any]) -> None:
        self.path = path
        self.identity = identity
        self.state: dict[str, Any] = {}

    @classmethod
    def for_job(cls, home: Path, job: str, identity: dict[str, Any]) -> Checkpoint:
        key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
        return cls(home / "checkpoints" / f"{job}-{key}.json", identity)

    def load(self) -> dict[str, Any]:
        """The saved state, or {} when there is none or it belongs to other inputs."""
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(saved, dict) or saved.get("identity") != self.identity:
            return {}
        state = saved.get("state")
        self.state = dict(state) if isinstance(state, dict) else {}
        return self.state

    def save(self, state: dict[str, Any]) -> None:
        self.state = state
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps({"identity": self.identity, "state": state}, default=str), encoding="utf-8"
        )
        os.replace(tmp, self.path)

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def file_identity(path: Path) -> dict[str, Any]:
    """What identifies an input file's content cheaply: where it is, its size and mtime."""
    stat = path.stat()
    return {"file": str(path.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
