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

.PHONY: run test migrate bench lint clean

# What running needs (make run), and beside it what testing and linting need (make test, make lint).
$(BIN)/activate: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(BIN)/activate

$(VENV)/.dev: $(BIN)/activate
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(VENV)/.dev

## Run the service on the embedded SQLite file (or on DATABASE_URL when set), migrating first.
run: $(BIN)/activate migrate
	PYTHON=$(BIN)/python bash scripts/compiled-app var/compiled  # the resolver compiled with mypyc, as in the image
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
	rm -rf $(VENV) var .pytest_cache .hypothesis

## Refresh the repo's copy of the golden vectors (every folder, with its SHA-256 manifest) from ../shared/rules/vectors.
.PHONY: vectors
vectors:
	test -d ../shared/rules/vectors
	rm -rf tests/data/vectors
	cp -R ../shared/rules/vectors tests/data/vectors
	cd tests/data/vectors && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum > ../vectors.sha256
