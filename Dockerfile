# The combat service. Non-root. By itself it migrates, then serves; docker-compose.yml migrates once in
# a separate container and runs the replicas with the serve-only command.
# Stage 1: the round's hot path compiled with mypyc (scripts/compile-resolver), about twice as fast
# for odds; the image runs the C extensions, the tests run them too (tests/resolver/test_compiled.py).
FROM python:3.11-slim AS compiled
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /build
COPY pyproject.toml README.md ./
COPY app ./app
COPY scripts/compile-resolver ./scripts/
RUN pip install --no-cache-dir . "mypy>=1.11" && bash scripts/compile-resolver /build \
  && mkdir /out && cp --parents $(find app -name '*.so') /out/ && cp ./*__mypyc*.so /out/

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /srv

COPY pyproject.toml README.md ./
COPY app ./app
COPY --from=compiled /out/ ./
RUN pip install . && useradd --system --uid 10001 --home-dir /srv combat && mkdir -p /srv/var && chown combat /srv/var

COPY alembic.ini ./
COPY migrations ./migrations
# The rules page (/docs/rules) is read from docs/rules.md beside the app package: uvicorn and alembic
# import the app from /srv (--app-dir, prepend_sys_path), not from the installed copy.
COPY docs ./docs
COPY scripts/empty-metrics-dir ./scripts/

USER combat
EXPOSE 8000
# The workers write their metrics to files there and /metrics adds them up (README, "Metrics"); it is
# emptied before uvicorn starts, and /tmp belongs to this container alone.
ENV WORKERS=2 PROMETHEUS_MULTIPROC_DIR=/tmp/prometheus-multiproc
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"
CMD ["sh", "-c", "alembic upgrade head && sh scripts/empty-metrics-dir && exec uvicorn app.main:create_app --factory --app-dir /srv --host 0.0.0.0 --port 8000 --workers ${WORKERS} --loop uvloop --http httptools --no-access-log"]
