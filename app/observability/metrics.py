"""Prometheus metrics at /metrics: requests and latency by route template and status, rounds resolved,
database connections in use. One registry per app, so several apps in one process (tests) never clash;
with PROMETHEUS_MULTIPROC_DIR set, /metrics adds up every worker's files instead (multiprocess.py)."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header
from fastapi.responses import PlainTextResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from app.observability.multiprocess import mark_dead_workers, multiprocess_dir
from app.platform.errors import ServiceError

METRICS_PATH = "/metrics"
ROUNDS_ROUTE = "/v1/encounters/{encounter_id}/rounds"
RESOLVE_ROUTE = "/v1/resolve"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Registers a listener called with the connections in use after every checkout and checkin.
PoolWatcher = Callable[[Callable[[int], None]], None]


class MetricsUnauthorized(ServiceError):
    status, type, title = 401, "unauthorized", "Missing or bad credentials"
    headers = {"WWW-Authenticate": "Bearer"}


class HttpMetrics:
    """Requests and latency by route template, method and status, and the rounds resolved, recorded by the
    edge (edge.py) once per answer. The labelled children are kept: finding one in prometheus_client takes a
    lock and a dict lookup per call, and a service has a few dozen (route, method, status) triples."""

    def __init__(self, registry: CollectorRegistry):
        self.registry = registry  # other packages' metrics join it (app/webhooks/metrics.py)
        self.requests = Counter(
            "http_requests_total",
            "Total number of requests by method, status and handler.",
            ["method", "status", "handler"],
            registry=registry,
        )
        self.latency = Histogram(
            "http_request_duration_seconds",
            "Duration of HTTP requests in seconds",
            ["handler", "status", "method"],
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        resolved = Counter(
            "combat_rounds_resolved",
            "Rounds resolved: stored (POST /v1/encounters/{id}/rounds) or stateless (POST /v1/resolve).",
            ["stored"],
            registry=registry,
        )
        # Counted from the answers of the two routes that resolve rounds, so the round code needs no metrics:
        # a stored round is a fresh 201 from POST .../rounds, a stateless one a 200 from POST /v1/resolve.
        self._rounds = {(ROUNDS_ROUTE, 201): resolved.labels("true"), (RESOLVE_ROUTE, 200): resolved.labels("false")}
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    def record(self, method: str, route: str, status: int, seconds: float, *, replayed: bool = False) -> None:
        children = self._children.get((method, route, status))
        if children is None:
            code = str(status)
            children = (self.requests.labels(method, code, route), self.latency.labels(route, code, method))
            self._children[(method, route, status)] = children
        children[0].inc()
        children[1].observe(seconds)
        if method == "POST" and not replayed:  # a replay answers a round resolved before: not counted twice
            rounds = self._rounds.get((route, status))
            if rounds is not None:
                rounds.inc()


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
    app: FastAPI, *, pool_in_use: Callable[[], int], watch_pool: PoolWatcher, metrics_token: str | None
) -> HttpMetrics:
    """The metrics and their /metrics route; the edge records every answer into what this returns."""
    folder = multiprocess_dir()
    if folder is not None:
        mark_dead_workers(folder)
    registry = CollectorRegistry(auto_describe=True)
    http = HttpMetrics(registry)
    pool_gauge(registry, pool_in_use, watch_pool)

    @app.get(
        METRICS_PATH,
        tags=["health"],
        dependencies=[Depends(token_guard(metrics_token))],
        response_class=PlainTextResponse,  # the Prometheus text format, documented as text/plain
        responses={200: {"description": "The Prometheus text exposition format.", "content": {"text/plain": {}}}},
        summary="Prometheus metrics",
        description="Requests and latency by route template and status, rounds resolved, database "
        "connections in use: of every worker when the service runs with PROMETHEUS_MULTIPROC_DIR, else of "
        "the worker that answers. With METRICS_TOKEN set, send it as a bearer token.",
    )
    async def metrics() -> Response:
        if multiprocess_dir() is None:
            exposition = generate_latest(registry)
        else:  # every worker's files, added up
            collected = CollectorRegistry()
            MultiProcessCollector(collected)  # type: ignore[no-untyped-call]  # unannotated upstream
            exposition = generate_latest(collected)
        return Response(exposition, media_type=CONTENT_TYPE_LATEST)

    return http
