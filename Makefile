# `make run` and `make test` set everything up in .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# an editable install as a path entry, with no import hook to load at every start of a command (10-20 ms)
EDITABLE := --config-settings editable_mode=compat

.PHONY: run test docs browser clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: $(BIN)/python setup.cfg pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(EDITABLE) -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed setup.cfg
	$(BIN)/python -m pip install --quiet $(EDITABLE) -e '.[test]'
	touch $@

# The main job: scan the benchmark kernels into results/kernels/ (exit status 1 only means bugs were found).
run: $(VENV)/.installed
	$(BIN)/simulee scan benchmarks/kernels -o results/kernels; test $$? -le 1

# Debian's Chromium and ChromeDriver, for the test of the HTML report in a real browser
browser:
	@test -x /usr/bin/chromium -a -x /usr/bin/chromedriver || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "note: no chromium and chromedriver (Debian packages chromium chromium-driver): the browser test is skipped"; fi; }

test: $(VENV)/.installed-test browser
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup --durations=25

# The documentation site (docs/, mkdocs.yml) into site/: open site/index.html
docs: $(VENV)/.installed-test
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

clean:
	rm -rf $(VENV) build site *.egg-info
