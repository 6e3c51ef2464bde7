# The two commands of the README: `make run` and `make test`. Everything else is a helper.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup run test lint typecheck unit schema neo4j-start neo4j-stop neo4j-status clean

# Creates the virtualenv and installs factgraph with its dev tools (re-run when pyproject changes).
setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "make: $(PYTHON) not found (Python 3.11+ needed)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

# Provisions and starts a local Neo4j unless NEO4J_URI is set, then serves on :8000.
run: setup
	$(BIN)/factgraph serve

# Lint, type-check, then the whole suite against a real Neo4j and the real model. Neo4j starts
# (and on a fresh clone provisions) in the background meanwhile: mypy and the JVM's start-up
# each keep one core busy, so on two cores the start costs the suite almost nothing.
test: setup
	@$(BIN)/factgraph neo4j start & neo4j=$$!; \
	$(MAKE) --no-print-directory lint typecheck; checked=$$?; \
	wait $$neo4j; started=$$?; \
	[ $$checked -eq 0 ] && [ $$started -eq 0 ]
	$(BIN)/pytest -q

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck:
	$(BIN)/mypy

# Regenerates schema.graphql from the code (the snapshot test compares the two).
schema: setup
	$(BIN)/factgraph schema print > schema.graphql

neo4j-start: setup
	$(BIN)/factgraph neo4j start
neo4j-stop: setup
	$(BIN)/factgraph neo4j stop
neo4j-status: setup
	$(BIN)/factgraph neo4j status

clean:
	-$(BIN)/factgraph neo4j stop
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
