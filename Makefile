# The two commands a newcomer needs: `make run` (the whole room) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install docs bench clean

# Reinstall when the dependencies or the set of packages change (an editable install maps
# the packages it found at install time).
$(STAMP): pyproject.toml $(wildcard libs/*/__init__.py services/*/__init__.py)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/felt up

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadgroup

docs: $(STAMP)
	$(BIN)/python -m felt_runtime.asyncapi docs/asyncapi

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf var .pytest_cache
