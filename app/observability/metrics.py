"""Prometheus metrics at /metrics: requests and latency by route template and status, rounds resolved,
database connections in use. One registry per app, so several apps in one process (tests) never clash;
with PROMETHEUS_MULTIPROC_DIR set, /metrics adds up every worker's files instead (multiprocess.py)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, FastAPI, Header
from fastapi.responses import PlainTextResponse
from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_fastapi_instrumentator import Instrumentator, metrics
from prometheus_fastapi_instrumentator.metrics import Info

from app.observability.multiprocess import mark_dead_workers, multiprocess_dir
from app.platform.errors import ServiceError

METRICS_PATH = "/metrics"
ROUNDS_ROUTE = "/v1/encounters/{encounter_id}/rounds"
RESOLVE_ROUTE = "/v1/resolve"
REPLAYED_HEADER = "Idempotent-Replayed"  # a replay answers a round resolved before: not counted twice
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Registers a listener called with the connections in use after every checkout and checkin.
PoolWatcher = Callable[[Callable[[int], None]], None]


class MetricsUnauthorized(ServiceError):
    status, type, title = 401, "unauthorized", "Missing or bad credentials"
    headers = {"WWW-Authenticate": "Bearer"}


def rounds_counter(registry: CollectorRegistry) -> Callable[[Info], None]:
    """Counts rounds from the answers of the two routes that resolve them, so the round code itself
    needs no metrics: a stored round is a fresh 201 from POST .../rounds, a stateless one a 200 from
    POST /v1/resolve."""
    resolved = Counter(
        "combat_rounds_resolved",
        "Rounds resolved: stored (POST /v1/encounters/{id}/rounds) or stateless (POST /v1/resolve).",
        ["stored"],
        registry=registry,
    )
    resolved.labels("true")
    resolved.labels("false")

    def count(info: Info) -> None:
        if info.method != "POST" or info.response is None:
            return
        if info.response.headers.get(REPLAYED_HEADER, "").lower() == "true":
            return
        if info.modified_handler == ROUNDS_ROUTE and info.response.status_code == 201:
            resolved.labels("true").inc()
        elif info.modified_handler == RESOLVE_ROUTE and info.response.status_code == 200:
            resolved.labels("false").inc()

    return count


def pool_gauge(registry: CollectorRegistry, pool_in_use: Callable[[], int], watch_pool: PoolWatcher) -> Gauge:
    """The connections checked out right now: of this worker, or summed over the live workers."""
    gauge = Gauge(
        "combat_db_pool_connections_in_use",
        "Database connections checked out of the SQLAlchemy pool (of every live worker in multiprocess mode).",
        registry=registry,
        multiprocess_mode="livesum",  # a worker that exited holds none
    )
    if multiprocess_dir() is None:
        gauge.set_function(lambda: float(pool_in_use()))  # read at every scrape
    else:
        # Another worker's scrape cannot call this worker's function: the worker writes its figure at
        # every checkout and checkin instead, so the sum is as fresh as with set_function.
        gauge.set(pool_in_use())
        watch_pool(gauge.set)
    return gauge


def token_guard(token: str | None) -> Callable[..., None]:
    """A dependency for /metrics: with a token configured, the scraper must send it as a bearer."""

    def require_token(authorization: Annotated[str | None, Header(include_in_schema=False)] = None) -> None:
        if token is None:
            return
        scheme, _, sent = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(sent.strip().encode(), token.encode()):
            raise MetricsUnauthorized("Send the metrics token as Authorization: Bearer <METRICS_TOKEN>.")

    return require_token


def install_metrics(
    app: FastAPI,
    *,
    pool_in_use: Callable[[], int],
    watch_pool: PoolWatcher,
    metrics_token: str | None,
    access_log: Callable[[Info], None],
) -> CollectorRegistry:
    folder = multiprocess_dir()
    if folder is not None:
        mark_dead_workers(folder)
    registry = CollectorRegistry(auto_describe=True)
    instrumentator = Instrumentator(
        should_group_status_codes=False,  # 201, 304, 409, 412 and 429 mean different things here
        should_group_untemplated=True,  # unknown paths share one "none" series: no label explosion
        excluded_handlers=[],
        registry=registry,
    )
    instrumentator.add(
        metrics.requests(registry=registry),
        metrics.latency(registry=registry, should_include_status=True, buckets=LATENCY_BUCKETS),
        rounds_counter(registry),
        access_log,
    )
    pool_gauge(registry, pool_in_use, watch_pool)
    instrumentator.instrument(app)
    instrumentator.expose(
        app,
        endpoint=METRICS_PATH,
        include_in_schema=True,
        tags=["health"],
        dependencies=[Depends(token_guard(metrics_token))],
        response_class=PlainTextResponse,  # the Prometheus text format, documented as text/plain
        responses={200: {"description": "The Prometheus text exposition format.", "content": {"text/plain": {}}}},
        summary="Prometheus metrics",
        description="Requests and latency by route template and status, rounds resolved, database "
        "connections in use: of every worker when the service runs with PROMETHEUS_MULTIPROC_DIR, else of "
        "the worker that answers. With METRICS_TOKEN set, send it as a bearer token.",
    )
    return registry
