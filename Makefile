# The two commands a newcomer needs:  make run   and   make test
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
WORKERS ?= 1
# The workers' metrics files, added up by whichever worker answers /metrics (README, "Metrics")
PROMETHEUS_MULTIPROC_DIR ?= $(CURDIR)/var/prometheus
export TEST_POSTGRES_URL ?= postgresql+psycopg://postgres:postgres@127.0.0.1:5432/combat_test
export TEST_REDIS_URL ?= redis://127.0.0.1:6379/1

.PHONY: run test migrate bench lint clean lock

# Every install comes from uv.lock (exact versions and hashes). uv itself is pinned and fetched from PyPI
# into .tools/ by pip, so a fresh machine needs python3 and PyPI only; dev pins the same uv in .venv.
UV_VERSION := 0.13.10
TOOLS := .tools
UV := $(TOOLS)/bin/uv
# uv uses the machine's python3 (never downloads an interpreter) and makes .venv with it
export UV_PYTHON := $(PYTHON)
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(CURDIR)/$(VENV)

$(UV):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)

# What running needs (make run: with the compile group, mypy and setuptools, as it compiles the resolver), and
# beside it what testing and linting need (make test, make lint).
# --frozen: install exactly the lock, never re-resolve (make lock does that).
$(BIN)/activate: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --quiet --group compile
	touch $(BIN)/activate

$(VENV)/.dev: $(BIN)/activate
	$(UV) sync --frozen --quiet --group compile --extra dev
	touch $(VENV)/.dev

## Resolve pyproject.toml's dependencies again into uv.lock (after adding, removing or widening one;
## `make lock ARGS=--upgrade` also moves everything to its newest allowed version). Commit both files.
lock: | $(UV)
	$(UV) lock $(ARGS)

## Run the service on the embedded SQLite file (or on DATABASE_URL when set), migrating first.
run: $(BIN)/activate migrate
	UV=$(UV) PYTHON=$(BIN)/python bash scripts/compiled-app var/compiled  # the resolver compiled with mypyc, as in the image
	export PROMETHEUS_MULTIPROC_DIR='$(PROMETHEUS_MULTIPROC_DIR)' && sh scripts/empty-metrics-dir && \
		exec $(BIN)/uvicorn app.main:create_app --factory --app-dir var/compiled --host $(HOST) --port $(PORT) --workers $(WORKERS) \
		--loop uvloop --http httptools --no-access-log

migrate: $(BIN)/activate
	$(BIN)/alembic upgrade head

## The whole test suite, against SQLite and PostgreSQL, rate limits in Redis, pages in Chromium, the proxy in nginx,
## TypeScript and axe-core through Node (each started or installed when missing).
test: $(VENV)/.dev
	bash scripts/ensure-postgres
	bash scripts/ensure-redis
	bash scripts/ensure-chromium
	bash scripts/ensure-nginx
	bash scripts/ensure-node
	REQUIRE_POSTGRES=1 $(BIN)/python -m pytest -q

## ruff, and mypy on app/ as configured in pyproject.toml (strict for app/resolver).
lint: $(VENV)/.dev
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app
	$(BIN)/python -m mypy

bench: $(VENV)/.dev
	$(BIN)/python bench/resolver_bench.py

clean:
	rm -rf $(VENV) $(TOOLS) var .pytest_cache .hypothesis

## Refresh the repo's copy of the golden vectors (every folder, with its SHA-256 manifest) from ../shared/rules/vectors.
.PHONY: vectors
vectors:
	test -d ../shared/rules/vectors
	rm -rf tests/data/vectors
	cp -R ../shared/rules/vectors tests/data/vectors
	cd tests/data/vectors && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum > ../vectors.sha256
