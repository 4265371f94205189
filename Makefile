# chunkctl — every target sets up .venv first (Python 3.11+, packages from PyPI only).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install run test test-fast fuzz lint typecheck bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

## run: set up, chunk the bundled examples (txt, md, html, pdf) into out/examples.jsonl and draw them in out/examples.html
run: install
	@mkdir -p out
	$(VENV)/bin/chunkctl chunk examples --chunk-size 256 --overlap 32 -o out/examples.jsonl
	@$(PY) -c "import json;[print(f\"{r['source']} #{r['chunk_index']} {r['n_tokens']:>3} tok  {' > '.join(r['headings'])}\") for r in map(json.loads, open('out/examples.jsonl'))]"
	$(VENV)/bin/chunkctl view examples --records out/examples.jsonl -o out/examples.html
	@echo "open out/examples.html in a browser to see the chunks"

## test: set up and run the whole test suite (what CI runs), naming the 15 slowest tests (slow ones first, idle workers steal: tests/conftest.py)
test: install
	$(PY) -m pytest -n auto --dist worksteal --durations=15

## test-fast: set up and run the suite without the tests marked slow (corpus-wide runs, Dask; see tests/conftest.py)
test-fast: install
	@echo '$(PY) -m pytest -n auto -m "not slow"'
	@start=$$(date +%s); $(PY) -m pytest -n auto -m "not slow"; rc=$$?; \
	echo "test-fast: $$(( $$(date +%s) - start )) s, slow tests left out (make test runs them)"; exit $$rc

## fuzz: set up and run the property tests with fresh random examples, ten times as many (make test repeats fixed ones)
fuzz: install
	HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -n auto -m "hypothesis and not slow"

## lint: ruff (pyflakes, pycodestyle, import order, bugbear, pyupgrade) on the package, tests and bench
lint: install
	$(VENV)/bin/ruff check chunkctl tests bench

## typecheck: mypy on the whole package (settings in pyproject.toml)
typecheck: install
	$(VENV)/bin/mypy

## bench: speed against one tiktoken pass and other chunkers (prints a table)
bench: install
	$(PY) -m pip install -q -e '.[bench]'
	@# bytecode as a pip install leaves it (an editable install under PYTHONDONTWRITEBYTECODE has none)
	$(PY) -m compileall -q chunkctl > /dev/null
	$(PY) bench/bench.py

clean:
	rm -rf $(VENV) out .pytest_cache .hypothesis
