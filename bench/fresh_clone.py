"""`make test` as a newcomer meets it: a fresh clone, an empty HOME, CI's own `.ci/run`, timed.

Each run clones this checkout's HEAD (committed work only) into a new folder, runs
`CI=true bash .ci/run` there with a HOME of its own (no uv, pip or Maven cache), and reports the
wall time with the set-up included, pytest's own time and summary, the slowest tests, and
whether any Java process of the clone was left running afterwards (issue 49: nothing may be).
Runs go one after another. Stop the local servers first (`make neo4j-stop`): a clone's servers
take the same ports. Take it on a quiet machine only; a run takes about nine minutes.

    .venv/bin/python bench/fresh_clone.py --runs 3 --out bench/results/fresh_clone.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SLOWEST = 5


def left_running(folder: Path) -> int:
    """Java processes whose command line names the clone's folder."""
    out = subprocess.run(["ps", "-eo", "args="], capture_output=True, text=True, check=True)
    return sum(1 for line in out.stdout.splitlines() if "java" in line and str(folder) in line)


def one_run(n: int, keep: bool, slowest_n: int = SLOWEST) -> dict[str, Any]:
    base = Path(tempfile.mkdtemp(prefix=f"factgraph-fresh-{n}-"))
    clone, home = base / "clone", base / "home"
    home.mkdir()
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True
    ).stdout.strip()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FACTGRAPH_", "NEO4J_"))}
    env.update(HOME=str(home), CI="true", PYTEST_ADDOPTS=f"--durations={slowest_n}")
    env.pop("VIRTUAL_ENV", None)
    started = time.monotonic()
    done = subprocess.run(
        ["bash", ".ci/run"], cwd=clone, env=env, capture_output=True, text=True, check=False
    )
    wall = time.monotonic() - started
    log = done.stdout + done.stderr
    (base / "run.log").write_text(log)
    summary = re.findall(r"^=*\s*(\d+ (?:passed|failed).*?) in ([\d.]+)s", log, re.MULTILINE)
    slowest = re.findall(r"^([\d.]+)s (call|setup|teardown)\s+(\S+)", log, re.MULTILINE)
    result = {
        "run": n,
        "commit": commit,
        "exit": done.returncode,
        "wall_s": round(wall),
        "pytest_s": float(summary[-1][1]) if summary else None,
        "summary": summary[-1][0] if summary else None,
        "slowest": [
            {"seconds": float(s), "phase": phase, "test": re.sub(r"@.*", "", test)}
            for s, phase, test in slowest[:slowest_n]
        ],
        "java_left_running": left_running(clone),
        "log": str(base / "run.log"),
    }
    if not keep:
        shutil.rmtree(clone, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=1, help="fresh clones, one after another")
    parser.add_argument("--out", type=Path, help="write the results here as JSON")
    parser.add_argument("--keep", action="store_true", help="keep each clone and its HOME")
    parser.add_argument("--slowest", type=int, default=SLOWEST, help="slowest tests reported")
    args = parser.parse_args()
    results = []
    for n in range(1, args.runs + 1):
        result = one_run(n, args.keep, args.slowest)
        results.append(result)
        print(json.dumps(result), flush=True)
    if args.out:
        args.out.write_text(json.dumps({"runs": results}, indent=2) + "\n")
    return 0 if all(r["exit"] == 0 and r["java_left_running"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
