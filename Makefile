# Two commands do all the set-up on a fresh machine (Python 3.11+ and make):
#   make run    play (see README)
#   make test   the whole test suite (every tier, both backends), lint and type checks
# and one for a developer's loop:
#   make check  lint, type checks and the fast tier (engine, text, app, store on SQLite), timed
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SHELL := bash
# The fast tier on both cores (pytest-xdist); CHECK_WORKERS=0 runs it in one process.
CHECK_WORKERS ?= 2

.PHONY: run check test test-pg test-e2e test-slow bench lint typecheck clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m adapters.run

# The default pytest run is the fast tier on SQLite (pyproject: -m 'not slow and not e2e', --backends=sqlite).
# The time is the whole target's, lint and type checks included; user+sys is the CPU it took.
check: $(STAMP)
	@TIMEFORMAT='make check: %1R s wall, %1U s user + %1S s sys CPU'; time ( \
	    $(MAKE) --no-print-directory lint typecheck && \
	    $(PY) -m pytest -n $(CHECK_WORKERS) )

# Everything: every tier (-m "" undoes the default's deselection) on both backends.
test: $(STAMP) lint typecheck
	scripts/ensure-postgres
	scripts/ensure-chromium
	$(PY) -m pytest -m "" --backends=all

test-pg: $(STAMP)
	scripts/ensure-postgres
	$(PY) -m pytest -m "pg and not slow and not e2e" --backends=all

test-e2e: $(STAMP)
	scripts/ensure-chromium
	$(PY) -m pytest -m e2e

test-slow: $(STAMP)
	scripts/ensure-postgres
	$(PY) -m pytest -m slow --backends=all

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy --strict engine bot adapters

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
