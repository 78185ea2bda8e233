# Two entry points for a fresh machine with python3 and make:
#   make demo  - install and run the guided tour on the embedded SQLite default
#   make test  - install with test extras and run the whole suite (SQLite + PostgreSQL)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo demo-web test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e .

install-test: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'

demo: install
	$(BIN)/campaign demo

# The demo campaign served and photographed (overview and luck charts at 390 and 1280 px)
# into docs/screenshots/ with Debian's headless Chromium (apt-get install chromium fonts-noto-cjk).
demo-web: install-test
	$(BIN)/python -m tests.browser.screenshots docs/screenshots

test: install-test
	CAMPAIGN_TEST_POSTGRES=$${CAMPAIGN_TEST_POSTGRES:-required} $(BIN)/python -m pytest -q

bench: install-test
	$(BIN)/python -m tests.perf.run

clean:
	rm -rf $(VENV) dist build .pytest_cache
