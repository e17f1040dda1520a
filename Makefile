# `make run` and `make test` set everything up in .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(BIN)/python setup.cfg pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# The main job: list every kernel of the bundled kernels.
run: $(VENV)/.installed
	$(BIN)/simulee kernels tests/kernels

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -n 2

clean:
	rm -rf $(VENV) build *.egg-info
