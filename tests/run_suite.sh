#!/usr/bin/env bash
# `make test`: ruff, mypy and the docs build while the local Neo4j starts (on a fresh clone it
# is fetched first, and what the suite fetches later with it: tests/prefetch.py), then the whole
# suite in TEST_WORKERS pytest-xdist workers.
#
# What the run starts, it stops, pass or fail: the local Neo4j, unless it was running before,
# and the workers' own servers (tests/conftest.py). KEEP=1 leaves them running, so that the next
# run skips their start. Servers started here are short-lived ones (graph/platform/neo4j_local.py).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-.venv/bin}
export FACTGRAPH_NEO4J_SHORT_LIVED=${FACTGRAPH_NEO4J_SHORT_LIVED:-1}
if [ -n "${KEEP:-}" ] && [ "$KEEP" != 0 ]; then
    export FACTGRAPH_TEST_KEEP_NEO4J=1
fi
# The suite runs dozens of Python processes (workers, the command line, MCP servers): without a
# bytecode cache each compiled every module it imports again, a second of CPU per process and
# seven per pytest collection. The caches go to .venv and git-ignored __pycache__ folders.
unset PYTHONDONTWRITEBYTECODE

started_here=""
if [ -z "${NEO4J_URI:-}" ]; then
    case $("$bin/factgraph" neo4j status 2>/dev/null) in
        *'"running": true'*) ;;
        *) started_here=1 ;;
    esac
fi
neo4j=""
stop_what_we_started() {
    [ -z "$neo4j" ] || wait "$neo4j" 2>/dev/null
    if [ -n "$started_here" ] && [ -z "${FACTGRAPH_TEST_KEEP_NEO4J:-}" ]; then
        "$bin/factgraph" neo4j stop >/dev/null
    fi
}
trap stop_what_we_started EXIT
trap 'exit 130' INT TERM

# One Maven at a time (its local repository is not safe for two): the server's jars first.
{ "$bin/factgraph" neo4j start && "$bin/python" -m tests.prefetch; } &
neo4j=$!
make --no-print-directory lint typecheck docs-build
checked=$?
wait "$neo4j"
up=$?
neo4j=""
[ "$checked" -eq 0 ] && [ "$up" -eq 0 ] || exit 1
# The 15 slowest tests close the run: where the next minute of `make test` is to be found.
"$bin/pytest" -q -n "${TEST_WORKERS:-2}" --dist loadgroup --no-loadscope-reorder --durations=15
