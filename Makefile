# Two entry points for a fresh machine with python3 and make:
#   make demo  - install and run the guided tour on the embedded SQLite default
#   make test  - install with test extras and run the whole suite (SQLite + PostgreSQL)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'

demo: install
	$(BIN)/campaign demo

test: install-test
	CAMPAIGN_TEST_POSTGRES=$${CAMPAIGN_TEST_POSTGRES:-required} $(BIN)/python -m pytest -q

bench: install-test
	$(BIN)/python -m tests.perf.run

clean:
	rm -rf $(VENV) dist build .pytest_cache
