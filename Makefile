# Quick start: `make train` (set up, then train and evaluate on the default env) and `make test`
# (set up, then run the test suite). Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup train test
setup: $(VENV)/.installed

# torch==2.13.0 first, pinned: the training extras would otherwise take whatever torch pip picks (on the
# project's CI machines 2.13.0 is a CPU build on local disk; elsewhere PyPI's default build for the platform).
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[train,test,multi]'
	touch $@

train: setup
	$(BIN)/wadgym train

test: setup
	$(BIN)/python -m pytest
