# Quick start: `make train` (set up, then train and evaluate on the default env) and `make test`
# (set up, then run the test suite and build the documentation site). Both create .venv on first use;
# `make test` also creates .venv-rllib for the RLlib backend's tests (Ray RLlib pins gymnasium, .venv stays
# on the newest). `make docs` serves the documentation site locally.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RLLIB_VENV ?= .venv-rllib
RLLIB_BIN := $(RLLIB_VENV)/bin
RLLIB_TESTS := tests/agents/rllib
comma := ,

.PHONY: setup setup-rllib train test test-rllib docs docs-build
setup: $(VENV)/.installed
setup-rllib: $(RLLIB_VENV)/.installed

# torch==2.13.0 first, pinned: the training extras would otherwise take whatever torch pip picks (on the
# project's CI machines 2.13.0 is a CPU build on local disk; elsewhere PyPI's default build for the platform).
# $(1): the venv folder, $(2): the extras.
define make_venv
	$(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install -q --upgrade pip
	$(1)/bin/python -m pip install -q torch==2.13.0
	$(1)/bin/python -m pip install -q -e '.[$(2)]'
	touch $(1)/.installed
endef

$(VENV)/.installed: pyproject.toml
	$(call make_venv,$(VENV),train$(comma)test$(comma)multi$(comma)track$(comma)demos$(comma)data$(comma)bench$(comma)dev$(comma)docs)

$(RLLIB_VENV)/.installed: pyproject.toml
	$(call make_venv,$(RLLIB_VENV),rllib$(comma)test$(comma)track)

train: setup
	$(BIN)/wadgym train

# The linter (ruff, settings in pyproject.toml), the documentation site (a broken link, a missing page or
# an unknown API name fails its strict build), the suite in .venv (newest gymnasium), then the RLlib tests
# in .venv-rllib, where a missing Ray is an error rather than a skip. The suite runs on a pytest-xdist worker
# per core (at most 4): most tests step one engine, which keeps about one core busy. It ends with its 20 slowest
# tests and their seconds, where the ten-minute suite's time goes.
test: setup setup-rllib
	$(BIN)/ruff check .
	$(MAKE) docs-build
	$(BIN)/python -m pytest --ignore=$(RLLIB_TESTS) -n auto --maxprocesses 4 --durations=20
	$(MAKE) test-rllib

test-rllib: setup-rllib
	WADGYM_REQUIRE_RLLIB=1 $(RLLIB_BIN)/python -m pytest $(RLLIB_TESTS)

# The documentation site (mkdocs.yml, sources in docs/): built into build/site (ignored by git), or
# served on http://127.0.0.1:8000 with live reload.
docs-build: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir build/site

docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve
