"""Wires request ids, logs and metrics onto the app, in the order the middleware stack needs."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from app.config import Settings
from app.observability.logs import configure_logging, log_access
from app.observability.metrics import PoolWatcher, install_metrics
from app.observability.request_id import install_request_ids


def install_observability(
    app: FastAPI, settings: Settings, *, pool_in_use: Callable[[], int], watch_pool: PoolWatcher
) -> None:
    """`pool_in_use` returns how many database connections this worker has checked out (the engine's
    `pool.checkedout()`); it is called at every scrape of /metrics. `watch_pool(listener)` has the
    listener called with that figure after every checkout and checkin (for multiprocess mode)."""
    configure_logging(settings.log_level)
    # Middleware added later wraps the earlier one: the metrics middleware goes first so that the
    # request id is already set when it writes the access line.
    install_metrics(
        app,
        pool_in_use=pool_in_use,
        watch_pool=watch_pool,
        metrics_token=settings.metrics_token,
        access_log=log_access,
    )
    install_request_ids(app)
