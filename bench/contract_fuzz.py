"""The contract fuzz of tests/test_contract.py, longer: every phase, stateful included.

Starts `factgraph serve` on a free port (or uses --url), runs schemathesis over /openapi.json
(examples, coverage, fuzzing, stateful: sequences that follow the document's links) and over
/graphql, each for 40% of --minutes, then calls every MCP tool of every tool set with
arguments drawn from its `inputSchema` (tests/mcp_contract.py) for the rest, with fixed seeds
so a failure reproduces, and writes the figures: requests, operations, failures by code (5xx,
schema mismatches, ...), MCP answers by code, and the server's ERROR log lines. Everything it
writes lands in one scope and its mem0 project's scopes, deleted at the end
(tests/contract_hooks.py points every GraphQL `scope:` there).

    .venv/bin/python bench/contract_fuzz.py --minutes 10 --out bench/results/contract_fuzz.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from bench.serve import drop_scope, free_port, start_server
from tests.mcp_contract import fuzz as fuzz_mcp

ROOT = Path(__file__).resolve().parent.parent
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
SEED = 59


def run(target: str, scope: str, seconds: int, report: Path, *extra: str) -> dict[str, Any]:
    """One schemathesis run; its figures from the NDJSON event stream."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as where:  # no failure cache carried between runs
        done = subprocess.run(
            [
                str(SCHEMATHESIS),
                f"--config-file={ROOT / 'tests' / 'schemathesis.toml'}",
                "run",
                target,
                f"--seed={SEED}",
                f"--max-time={seconds}",
                "--workers=1",
                "--no-color",
                # Hypothesis' too_slow health check times the generation of data, which on a loaded
                # machine fails a run that found nothing: the one check that depends on the clock.
                "--suppress-health-check=too_slow",
                "--request-timeout=60",
                f"--header=X-Scope: {scope}",
                "--report=ndjson",
                f"--report-ndjson-path={report}",
                *extra,
            ],
            env={
                **os.environ,
                "SCHEMATHESIS_HOOKS": "tests.contract_hooks",
                "CONTRACT_SCOPE": scope,
                "PYTHONPATH": str(ROOT),
            },
            cwd=where,
            capture_output=True,
            text=True,
            check=False,
        )
    figures = figures_of(report)
    figures.update(exit_code=done.returncode, seconds=round(time.monotonic() - started, 1))
    report.with_suffix(".txt").write_text(done.stdout + done.stderr)
    return figures


MCP_PATHS = ("/mcp", "/mcp/memory", "/mcp/neo4j-memory")


def run_mcp(base: str, scope: str, seconds: int) -> dict[str, Any]:
    """Rounds of the MCP tools' fuzz (a new seed each) over every tool set until the time is
    spent; a broken contract is recorded with its seed and the rounds go on."""
    started = time.monotonic()
    answers: Counter[str] = Counter()
    failures: list[str] = []
    rounds = 0
    while time.monotonic() - started < seconds:
        for path in MCP_PATHS:
            try:
                answers.update(
                    fuzz_mcp(f"{base}{path}", scope, examples_per_tool=20, seed=SEED + rounds)
                )
            except AssertionError as exc:
                failures.append(f"{path} seed {SEED + rounds}: {str(exc)[:300]}")
        rounds += 1
    return {
        "rounds": rounds,
        "calls": sum(answers.values()),
        "answers": dict(answers),
        "failures": failures,
        "seconds": round(time.monotonic() - started, 1),
    }


def figures_of(report: Path) -> dict[str, Any]:
    """Requests, operations and failures (by schemathesis' code) from an NDJSON report."""
    requests = 0
    statuses: Counter[str] = Counter()
    operations: set[str] = set()
    failures: Counter[str] = Counter()
    for line in report.read_text().splitlines():
        event = json.loads(line)
        for name, body in event.items():
            if not isinstance(body, dict):
                continue
            label = body.get("label") or (body.get("recorder") or {}).get("label")
            if isinstance(label, str) and name == "ScenarioFinished":
                operations.add(label)
            recorder = body.get("recorder")
            if not isinstance(recorder, dict):
                continue
            for interactions in (recorder.get("interactions") or {}).values():
                response = interactions.get("response") if isinstance(interactions, dict) else None
                if response is not None:
                    requests += 1
                    statuses[f"{str(response.get('status_code', 0))[0]}xx"] += 1
            for checks in (recorder.get("checks") or {}).values():
                for check in checks:
                    if check.get("failure_info"):
                        failure = check["failure_info"].get("failure", {})
                        failures[str(failure.get("code", check.get("name")))] += 1
    return {
        "requests": requests,
        "statuses": dict(statuses),
        "operations": len(operations),
        "failures": dict(failures),
    }


def errors_in(log: Path, since: int) -> list[str]:
    """The ERROR lines the server logged from byte `since` of its log."""
    lines = log.read_bytes()[since:].decode(errors="replace").splitlines()
    found = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("level") == "error":
            found.append(str(record.get("message")))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--url", help="a running server (its log is then not read)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench/results/contract_fuzz.json")
    args = parser.parse_args()
    scope = f"bench-contract-{uuid.uuid4().hex[:8]}"
    half = max(30, int(args.minutes * 60 * 0.4))
    work = Path(tempfile.mkdtemp(prefix="contract-fuzz-"))
    log = work / "serve.log"
    proc = None
    if args.url is None:
        log.touch()
        port = free_port()
        proc = start_server(port, log)
    base = args.url or f"http://127.0.0.1:{port}"
    try:
        since = log.stat().st_size if log.exists() else 0
        rest = run(f"{base}/openapi.json", scope, half, work / "rest.ndjson")
        graphql = run(
            f"{base}/graphql",
            scope,
            half,
            work / "graphql.ndjson",
            "--exclude-checks=positive_data_acceptance",
        )
        mcp = run_mcp(base, scope, max(30, int(args.minutes * 60 * 0.2)))
        errors = errors_in(log, since) if args.url is None else []
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=60)
        drop_scope(scope)
    result = {
        "minutes": args.minutes,
        "seed": SEED,
        "rest": rest,
        "graphql": graphql,
        "mcp": mcp,
        "error_log_lines": len(errors),
        "error_messages": sorted(set(errors))[:20],
        "outputs": str(work),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    passed = rest["exit_code"] == 0 and graphql["exit_code"] == 0 and not mcp["failures"]
    return 0 if passed and not errors else 1


if __name__ == "__main__":
    raise SystemExit(main())
