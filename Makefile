# Two entry points for a fresh machine with python3 and make:
#   make demo  - install and run the guided tour on the embedded SQLite default
#   make test  - install with test extras and run the whole suite (SQLite + PostgreSQL)
#   make lint  - ruff (check and format) and mypy, configured in pyproject.toml; CI runs it first
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo demo-web docs test test-fast lint install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the demo's install brings the web extra too, so `campaign serve` works after it
install: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[web]'

# The install is editable, so code changes need none: pip runs again only when
# pyproject.toml changes (or with `make clean`), not before every test run (3-6 s).
install-test: $(VENV)/.installed-test

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: install
	$(BIN)/campaign demo

# The demo campaign served and photographed (overview and luck charts at 390 and 1280 px)
# into docs/screenshots/ with Debian's headless Chromium (apt-get install chromium fonts-noto-cjk).
demo-web: install-test
	$(BIN)/python -m tests.browser.screenshots docs/screenshots

# docs/cli.md, the command reference in both languages, written from the command tree
# (tests/cli/test_cli_reference.py fails when it is out of date).
docs: install-test
	$(BIN)/python -m tests.cli_reference docs/cli.md

test: install-test
	CAMPAIGN_TEST_POSTGRES=$${CAMPAIGN_TEST_POSTGRES:-required} $(BIN)/python -m pytest -q

# The everyday check while developing (not CI): everything except tests marked `slow`
# (crash/load/concurrency, packaging, the browser, multi-process CLI runs), SQLite only
# except tests marked `dialect`, fewer hypothesis programs (CAMPAIGN_TEST_FAST), on two
# xdist workers, each with its own throwaway PostgreSQL (in /dev/shm when it has room);
# --dist loadfile builds each module's fixtures once (worksteal measured slower here).
# Bytecode caching stays on here so a second run skips recompiling.
test-fast: install-test
	env -u PYTHONDONTWRITEBYTECODE CAMPAIGN_TEST_FAST=1 CAMPAIGN_TEST_POSTGRES=$${CAMPAIGN_TEST_POSTGRES:-required} \
		$(BIN)/python -m pytest -q -m "not slow" -n $${CAMPAIGN_TEST_WORKERS:-2} --dist loadfile

# Commit subjects stay within 72 characters from SUBJECTS_SINCE on (the commits before it
# are history); skipped outside a git checkout or in a clone too shallow to hold it.
# (moved to the last merge of round 3, session 2: the helper branches' subjects before it stay as written)
SUBJECTS_SINCE := cc59d89

lint: install-test
	$(BIN)/ruff check campaign tests
	$(BIN)/ruff format --check campaign tests
	$(BIN)/mypy campaign
	@if git rev-parse -q --verify '$(SUBJECTS_SINCE)^{commit}' >/dev/null 2>&1; then \
		git log --no-merges --format=%s '$(SUBJECTS_SINCE)..HEAD' | $(BIN)/python -c 'import sys; \
		long = [s for s in sys.stdin.read().splitlines() if len(s) > 72]; \
		[print("commit subject over 72 characters:", s) for s in long]; sys.exit(bool(long))'; \
	fi

bench: install-test
	$(BIN)/python -m tests.perf.run

clean:
	rm -rf $(VENV) dist build .pytest_cache
