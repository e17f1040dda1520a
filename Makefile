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

# The main job: scan the benchmark kernels into results/kernels/ (exit status 1 only means bugs were found).
run: $(VENV)/.installed
	$(BIN)/simulee scan benchmarks/kernels -o results/kernels; test $$? -le 1

test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

clean:
	rm -rf $(VENV) build *.egg-info
