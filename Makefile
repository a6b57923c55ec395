# `make demo` and `make test` work on a fresh machine with Python 3.11 and pip:
# each creates .venv when it is missing and installs what it needs into it.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip install --quiet --disable-pip-version-check
# The checkout is installed editable as a path entry (setuptools' "compat" mode), not through the
# import hook setuptools installs by default: that hook is imported at every interpreter start and
# cost each `prism-lineage` process about 17 ms (of an 80 ms answer from the store) — a cost of
# the editable checkout that an installed package does not have.
EDITABLE := --config-settings editable_mode=compat

.PHONY: demo test bench install clean duckdb-plans docs-pictures

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.stamp-base: pyproject.toml | $(PY)
	$(PIP) $(EDITABLE) -e .
	touch $@

$(VENV)/.stamp-test: pyproject.toml | $(PY)
	$(PIP) $(EDITABLE) -e ".[test]"
	touch $@ $(VENV)/.stamp-base

$(VENV)/.stamp-bench: pyproject.toml | $(PY)
	$(PIP) $(EDITABLE) -e ".[test,bench]"
	touch $@ $(VENV)/.stamp-base $(VENV)/.stamp-test

install: $(VENV)/.stamp-base

demo: $(VENV)/.stamp-base
	$(VENV)/bin/prism-lineage explain examples/orders/summary.sql --schema examples/orders/schema.yaml
	$(VENV)/bin/prism-lineage explain examples/orders/top_customers.sql --schema examples/orders/schema.yaml

test: $(VENV)/.stamp-test
	$(PY) -m pytest

bench: $(VENV)/.stamp-bench
	$(PY) -m benchmarks.run

# DuckDB's own Substrait plans for the tests (committed): its extension exists for DuckDB 1.1.3
# only, so it gets an environment of its own (tests/fixtures/duckdb/generate.py).
duckdb-plans:
	test -x .venv-duckdb/bin/python || $(PYTHON) -m venv .venv-duckdb
	.venv-duckdb/bin/python -m pip install --quiet duckdb==1.1.3 duckdb-extension-substrait==1.1.3
	.venv-duckdb/bin/python tests/fixtures/duckdb/generate.py

clean:
	rm -rf $(VENV) .venv-duckdb .pytest_cache .hypothesis

# The pictures in docs/ (not needed by the tests, which check them without Graphviz):
# needs Graphviz's `dot` (apt-get install graphviz).
docs-pictures: $(VENV)/.stamp-base
	$(VENV)/bin/prism-lineage explain examples/orders/summary.sql --schema examples/orders/schema.yaml --format dot \
		| dot -Tsvg -o docs/pictures/summary-columns.svg
