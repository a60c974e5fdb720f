# The combat service. Non-root. By itself it migrates, then serves; docker-compose.yml migrates once in
# a separate container and runs the replicas with the serve-only command.
#
# Stage 1 installs the locked dependencies (uv.lock, with uv pinned below) into /srv/.venv and compiles
# the round's hot path with mypyc (scripts/compile-resolver, about twice as fast for odds) beside its
# sources in /srv/app. Stage 2 gets that one copy of the app and the environment, and no compiler.
# The project is installed editable: site-packages holds only a pointer to /srv/app, so uvicorn, alembic
# and combat-admin all import the same compiled copy (tests/resolver/test_compiled.py tests compiled code).
# Base images: the current stable Python on Debian's current stable release, named exactly (a tag
# without the release would move to the next Debian under us).
FROM python:3.14-slim-trixie AS build
ARG UV_VERSION=0.13.10
# A C compiler for mypyc (and for any dependency without a wheel for this Python); this stage only.
# DL3008 (pin apt versions): Debian replaces a stable release's package versions with each point
# release and security update and drops the old ones from the mirror, so an exact pin stops building
# within weeks; the release is fixed by the base image's tag (trixie).
# hadolint ignore=DL3008
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir "uv==${UV_VERSION}"
# UV_SYSTEM_CERTS: trust the image's CA store (ca-certificates, plus a site's own CA added to it),
# as pip does, rather than uv's built-in list
ENV UV_PROJECT_ENVIRONMENT=/srv/.venv UV_PYTHON_DOWNLOADS=never UV_LINK_MODE=copy UV_NO_CACHE=1 \
    UV_SYSTEM_CERTS=1 PYTHONDONTWRITEBYTECODE=1
WORKDIR /srv
# Dependencies first (a layer kept while only the code changes); mypy (the lock's) for mypyc
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-install-project --group compile
COPY app ./app
COPY scripts/compile-resolver ./scripts/
# Compile, then sync again without the compile group: mypy leaves, the project is installed (editable)
RUN PYTHON=/srv/.venv/bin/python bash scripts/compile-resolver /srv && uv sync --frozen

FROM python:3.14-slim-trixie

# PYTHONPATH: the app and mypyc's shared library (/srv/*__mypyc*.so) for every entry point, combat-admin too
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PATH=/srv/.venv/bin:$PATH PYTHONPATH=/srv
WORKDIR /srv
RUN useradd --system --uid 10001 --home-dir /srv combat && mkdir -p /srv/var && chown 10001:10001 /srv/var
COPY --from=build /srv/.venv ./.venv
COPY --from=build /srv/app ./app
COPY --from=build /srv/*__mypyc*.so /srv/pyproject.toml ./
COPY alembic.ini ./
COPY migrations ./migrations
# The rules page (/docs/rules) is read from docs/rules.md beside the app package
COPY docs ./docs
COPY scripts/empty-metrics-dir ./scripts/

# The embedded SQLite database (var/combat.db, used when DATABASE_URL is not set) outlives the container:
# `docker run -v combat-data:/srv/var ...`, or an anonymous volume by default
VOLUME /srv/var
USER 10001:10001
EXPOSE 8000
# The workers write their metrics to files there and /metrics adds them up (README, "Metrics"); it is
# emptied before uvicorn starts, and /tmp belongs to this container alone.
ENV WORKERS=2 PROMETHEUS_MULTIPROC_DIR=/tmp/prometheus-multiproc
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD ["python", "-c", "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"]
CMD ["sh", "-c", "alembic upgrade head && sh scripts/empty-metrics-dir && exec uvicorn app.main:create_app --factory --app-dir /srv --host 0.0.0.0 --port 8000 --workers ${WORKERS} --loop uvloop --http httptools --no-access-log"]
