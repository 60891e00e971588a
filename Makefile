# The two commands a newcomer needs: `make run` (the whole room) and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck install docs bench load chaos soak clean FORCE

# Reinstall when the dependencies or the set of packages change (an editable install maps
# the packages it found at install time).
# The room brings the agents' client (libs/felt_client, a distribution of its own) as a copy; it is
# then installed editable in its place, so a change to it is seen without reinstalling.
$(STAMP): pyproject.toml setup.py libs/felt_client/pyproject.toml $(wildcard libs/*/__init__.py services/*/__init__.py)
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	$(BIN)/python -m pip install -q --no-deps -e libs/felt_client
	touch $(STAMP)

# The engine compiled by mypyc (docs/development.md "The compiled engine"): rebuilt when a source
# it was built from changes or FELT_ENGINE_PURE changes; pure Python without a C compiler.
ENGINE := libs/felt_engine/.compiled.json
ENGINE_PURE := $(if $(FELT_ENGINE_PURE),true,false)
$(ENGINE): $(STAMP) tools/compile_engine.py $(wildcard libs/felt_engine/*.py libs/felt_contracts/*.py) \
		$(if $(shell grep -qs '"pure": $(ENGINE_PURE)' $(ENGINE) || echo rebuild),FORCE)
	$(BIN)/python tools/compile_engine.py

FORCE:

install: $(STAMP) $(ENGINE)

run: $(ENGINE)
	$(BIN)/felt up

# three workers on two cores: with two, the cores are idle a third of the time (services
# starting, tests waiting on the room)
test: $(ENGINE)
	$(BIN)/python -m pytest -n 3 --dist loadgroup --no-loadscope-reorder --durations=15

# ruff, then the import contracts ([tool.importlinter] in pyproject.toml: the table's layers,
# services independent of each other, the engine pure)
lint: $(STAMP)
	$(BIN)/ruff check libs services tests benchmarks tools
	$(BIN)/ruff format --check libs services tests benchmarks tools
	$(BIN)/lint-imports --no-logo --no-cache

# mypy as configured in pyproject.toml: strict for felt_engine and felt_contracts, checked elsewhere
typecheck: $(STAMP)
	$(BIN)/mypy

docs: $(STAMP)
	$(BIN)/python -m felt_runtime.asyncapi docs/asyncapi
	$(BIN)/python -m felt_runtime.nats_access deploy/k8s/base/nats-users.conf

bench: $(ENGINE)
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

# capacity at human pace through the gateway (docs/benchmarks.md "Capacity"); STEP=60 LEVELS=30,60,…
load: $(ENGINE)
	$(BIN)/python benchmarks/load.py --step-seconds $(or $(STEP),60) $(if $(LEVELS),--levels $(LEVELS))

# the whole room under kill -9 of random processes (docs/reliability.md); SECONDS=600 SEED=7
chaos: $(ENGINE)
	$(BIN)/python -m tests.chaos.room --seconds $(or $(SECONDS),600) $(if $(SEED),--seed $(SEED))

# steady play with memory and open fds of every process sampled each minute; MINUTES=60 BOTS=12 TRACE=limits
soak: $(ENGINE)
	$(BIN)/python -m tests.chaos.soak --minutes $(or $(MINUTES),60) --bots $(or $(BOTS),12) $(if $(TRACE),--trace $(TRACE))

clean:
	rm -rf var .pytest_cache
