"""Wires logs, metrics and the request id's 500 echo onto the app; main.py adds the edge (edge.py) that
records into them."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from app.config import Settings
from app.observability.logs import configure_logging
from app.observability.metrics import HttpMetrics, PoolWatcher, install_metrics
from app.observability.request_id import echo_on_unexpected_errors


def install_observability(
    app: FastAPI, settings: Settings, *, pool_in_use: Callable[[], int], watch_pool: PoolWatcher
) -> HttpMetrics:
    """`pool_in_use` returns how many database connections this worker has checked out (the engine's
    `pool.checkedout()`); it is called at every scrape of /metrics. `watch_pool(listener)` has the
    listener called with that figure after every checkout and checkin (for multiprocess mode).
    Call it after the problem handlers are installed: the 500 answer they build gets the request id."""
    configure_logging(settings.log_level)
    echo_on_unexpected_errors(app)
    return install_metrics(app, pool_in_use=pool_in_use, watch_pool=watch_pool, metrics_token=settings.metrics_token)
