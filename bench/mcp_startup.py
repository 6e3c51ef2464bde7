"""How long a host waits for `factgraph mcp`: spawn to the `initialize` answer, to the
`tools/list` answer, and to the first tool call's answer (a `search`, which needs Neo4j and
the model), over several fresh processes.

Each run spawns `factgraph mcp --scope bench-mcp-startup` (as a desktop host does at every
launch), speaks newline-delimited JSON-RPC on its stdin / stdout without an SDK in between, and
reads the process's CPU time (user + system, from /proc) when `tools/list` has answered: on a
shared machine wall time mostly measures the other jobs, CPU time what the start-up costs.
Neo4j must be running (`factgraph neo4j start`), so that no run pays for starting it.

    .venv/bin/python bench/mcp_startup.py                 # 7 runs
    .venv/bin/python bench/mcp_startup.py --runs 15 --tools memory

Writes bench/results/mcp_startup.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

from bench.latency_report import machine, stamp

RESULTS = Path(__file__).parent / "results" / "mcp_startup.json"
FACTGRAPH = str(Path(sys.executable).with_name("factgraph"))
CALLS = {"factgraph": ("search", {"query": "tea"}), "memory": ("read_graph", {})}


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _answer(stdout: IO[str]) -> dict[str, Any]:
    line = stdout.readline()
    if not line:
        raise RuntimeError("the server closed stdout (see its stderr above)")
    answer: dict[str, Any] = json.loads(line)
    return answer


def one_run(tools: str) -> dict[str, float]:
    """Seconds from spawn to each answer, and the CPU seconds spent by `tools/list`."""
    command = [FACTGRAPH, "mcp", "--scope", "bench-mcp-startup", "--tools", tools]
    start = time.monotonic()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()

    client = {"name": "bench", "version": "1"}
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init})
    _answer(process.stdout)
    initialized = time.monotonic() - start
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    _answer(process.stdout)
    listed = time.monotonic() - start
    cpu = _cpu_seconds(process.pid)
    name, arguments = CALLS[tools]
    params = {"name": name, "arguments": arguments}
    send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params})
    called = _answer(process.stdout)
    assert not called["result"].get("isError"), called
    first_call = time.monotonic() - start
    process.stdin.close()
    process.wait(timeout=60)
    return {"initialize": initialized, "tools_list": listed, "first_call": first_call, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tools", choices=sorted(CALLS), default="factgraph")
    args = parser.parse_args()
    one_run(args.tools)  # warm-up: the OS's file cache, Neo4j's page cache
    runs = [one_run(args.tools) for _ in range(args.runs)]
    summary = {
        key: {
            "median_s": round(statistics.median(r[key] for r in runs), 3),
            "min_s": round(min(r[key] for r in runs), 3),
            "max_s": round(max(r[key] for r in runs), 3),
        }
        for key in runs[0]
    }
    report = {
        "when": stamp(),
        "machine": machine(),
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "tools": args.tools,
        "runs": args.runs,
        "summary": summary,
        "each": [{k: round(v, 3) for k, v in r.items()} for r in runs],
    }
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    for key, figures in summary.items():
        print(
            f"{key:12} median {figures['median_s']:.2f} s  (min {figures['min_s']:.2f}, "
            f"max {figures['max_s']:.2f})"
        )


if __name__ == "__main__":
    main()
